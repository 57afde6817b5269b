import { useCallback, useEffect, useRef, useState } from 'react';
import type { MenuCommand, ViewName } from '../../shared/api-types';
import { missingCase } from '../../shared/records';
import { bridge } from '../bridge/bridge';
import { inBrowserMode } from '../bridge/ws-bridge';
import { formatDeepLink, parseDeepLink } from '../lib/deep-link';
import { isControlTarget, isTypingTarget, shortcutAction } from '../lib/shortcuts';
import { useFrameState } from '../state/frames';
import { INITIAL_OVERVIEW } from '../state/overview-state';
import type { OverviewState } from '../state/overview-state';
import { setThemePref, useTheme } from '../state/theme-store';
import { togglePauseOfView } from '../state/pause-key';
import { useSourceNotices } from '../state/use-source-notices';
import { ChainsView } from '../views/chains-view';
import { ConnectionsView } from '../views/connections-view';
import { EventsView } from '../views/events-view';
import { InsightsView } from '../views/insights-view';
import { OverviewView } from '../views/overview-view';
import { AboutDialog } from './about-dialog';
import { AppHeader } from './app-header';
import { CopyToast } from './copy-toast';
import { exportPng, openDroppedFile, runFileAction } from './file-actions';
import { LinkBanner } from './link-banner';
import { NoticeBanners, useNotices } from './notices';
import { ProblemsPanel } from './problems-panel';
import { ProgressBar } from './progress-bar';
import { ShortcutsDialog } from './shortcuts-dialog';
import { VIEWS, ViewTabs } from './view-tabs';

/** The application shell: header, tabs, the current view, notices, drag and drop. */
export function App() {
  const { frame, epoch, resets } = useFrameState();
  const { theme } = useTheme();
  const [link] = useState(() => parseDeepLink(window.location.hash));
  const [view, setViewState] = useState<ViewName>(link.view);
  const [chainHash, setChainHash] = useState<string | undefined>(link.hash);
  const [eventsAt, setEventsAt] = useState<number | undefined>(link.at);
  /** Counts the links followed (back, forward, an edited URL): a new one remounts the view. */
  const [followed, setFollowed] = useState(0);
  // A hash handed to Chains (a time to Events) by a link holds until the user goes to another view.
  const setView = useCallback((next: ViewName) => {
    setViewState(next);
    if (next !== 'chains') setChainHash(undefined);
    if (next !== 'events') setEventsAt(undefined);
  }, []);
  // "Open in Chains" (a hot prefix) and "Show in Chains" (an event): the chains through a block.
  const openChain = useCallback(
    (hash: string) => {
      setView('chains');
      setChainHash(hash);
    },
    [setView],
  );

  // Each view the user goes to is a history entry, so back and forward walk the views; the first
  // one only names the view shown at start.
  const firstLink = useRef(true);
  useEffect(() => {
    const hash = formatDeepLink({
      view,
      hash: view === 'chains' ? chainHash : undefined,
      at: view === 'events' ? eventsAt : undefined,
    });
    if (window.location.hash !== hash) {
      if (firstLink.current) window.history.replaceState(null, '', hash);
      else window.history.pushState(null, '', hash);
    }
    firstLink.current = false;
  }, [view, chainHash, eventsAt]);
  useEffect(() => {
    const follow = () => {
      const next = parseDeepLink(window.location.hash);
      setViewState(next.view);
      setChainHash(next.hash);
      setEventsAt(next.at);
      setFollowed((n) => n + 1);
    };
    // Back and forward fire popstate; an edited hash fires hashchange (and sometimes both).
    window.addEventListener('hashchange', follow);
    window.addEventListener('popstate', follow);
    return () => {
      window.removeEventListener('hashchange', follow);
      window.removeEventListener('popstate', follow);
    };
  }, []);
  const [about, setAbout] = useState(false);
  const [shortcuts, setShortcuts] = useState(false);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  // Above the views: leaving the Overview must not reset its range, pause and legend.
  const [overview, setOverview] = useState<OverviewState>(INITIAL_OVERVIEW);

  const { notices, notify, dismiss } = useNotices();
  useSourceNotices(notify);

  useEffect(() => {
    return bridge().onMenuCommand((cmd: MenuCommand) => {
      if (cmd.kind === 'view') setView(cmd.view);
      else if (cmd.kind === 'theme') setThemePref(cmd.theme);
      else if (cmd.kind === 'export-png') void exportPng(theme, notify);
      else if (cmd.kind === 'shortcuts') setShortcuts(true);
      else setAbout(true);
    });
  }, [theme, notify, setView]);

  const isSession = frame?.view.kind === 'session';
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat) return;
      const focused = document.activeElement;
      const action = shortcutAction(e, {
        typing: isTypingTarget(focused),
        onControl: isControlTarget(focused),
        desktop: !inBrowserMode(),
        views: VIEWS.length,
      });
      if (!action) return;
      // A dialog open (this list, About) keeps the keys to itself, except `?` closing nothing.
      if (document.querySelector('dialog[open]')) return;
      e.preventDefault();
      switch (action.kind) {
        case 'view': {
          const target = VIEWS[action.index];
          if (target) setView(target.id);
          return;
        }
        case 'open':
          void runFileAction('Opened', () => bridge().openSession(), notify);
          return;
        case 'save':
          if (isSession)
            notify(
              'An opened session is already saved: go back to live to save the live recording.',
            );
          else void runFileAction('Saved', () => bridge().saveSessionAs(), notify);
          return;
        case 'pause':
          if (view === 'overview') setOverview((s) => ({ ...s, paused: !s.paused }));
          else togglePauseOfView();
          return;
        case 'help':
          setShortcuts(true);
          return;
        default:
          missingCase(action);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView, notify, view, isSession]);

  useEffect(() => {
    const hasFiles = (e: DragEvent) => e.dataTransfer?.types.includes('Files') ?? false;
    const onOver = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setDragging(true);
    };
    const onLeave = (e: DragEvent) => {
      if (e.relatedTarget == null) setDragging(false);
    };
    const onDrop = (e: DragEvent) => {
      e.preventDefault();
      setDragging(false);
      const file = e.dataTransfer?.files[0];
      if (file) void openDroppedFile(file, notify);
    };
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, [notify]);

  const problems = frame?.view.problems ?? [];
  const problemsKey = problems.join('\n');
  const showProblems = problems.length > 0 && dismissed !== problemsKey;
  const progress = frame?.view.progress ?? null;

  return (
    <div className="app">
      <AppHeader view={frame?.view ?? null} recording={frame?.recording} notify={notify} />
      <LinkBanner />
      <nav className="nav">
        <ViewTabs view={view} onChange={setView} />
        <ProgressBar reading={progress} notify={notify} />
      </nav>
      <NoticeBanners notices={notices} dismiss={dismiss} />
      {showProblems && (
        <ProblemsPanel
          problems={problems}
          live={frame?.view.kind === 'live'}
          onDismiss={() => setDismissed(problemsKey)}
        />
      )}
      <main
        className="main"
        role="tabpanel"
        id={`panel-${view}`}
        aria-labelledby={`tab-${view}`}
        // A new view (a file opened, back to live) starts the views over; the first frame does
        // not: what the reader did before it (a filter, a row opened) was asked of this view.
        key={`${view}:${resets}:${followed}`}
      >
        {view === 'overview' && (
          <OverviewView
            state={overview}
            onChange={setOverview}
            epoch={epoch}
            notify={notify}
            onOpenEvents={(at) => {
              setViewState('events');
              setEventsAt(at);
            }}
          />
        )}
        {view === 'insights' && <InsightsView onOpenChain={openChain} />}
        {view === 'chains' && <ChainsView initialHash={chainHash} notify={notify} />}
        {view === 'events' && (
          <EventsView
            at={eventsAt}
            onClearAt={() => setEventsAt(undefined)}
            onOpenChain={openChain}
            notify={notify}
          />
        )}
        {view === 'connections' && <ConnectionsView notify={notify} />}
      </main>
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          Drop a session (.kvscope.jsonl.gz) or a capture (.jsonl) to open it
        </div>
      )}
      {about && <AboutDialog onClose={() => setAbout(false)} />}
      {shortcuts && <ShortcutsDialog onClose={() => setShortcuts(false)} />}
      <CopyToast />
    </div>
  );
}
