// Browser stand-ins for the desktop's file dialogs: a file picker uploads to `kvscope serve`,
// and saving is a download.

import type { FileLoad, FileResult } from '../../shared/api-types';
import { CANCELLED, done, failed, loaded } from '../../shared/file-result';
import { HTTP_ROUTES, refusalReason } from '../../shared/ws-protocol';
import { uploadEnded, uploadProgress, uploadStarted } from './upload-progress';

/** Opens a file picker; resolves with the chosen file, or null when the user cancels. */
export function pickFile(accept: string): Promise<File | null> {
  return new Promise((resolve) => {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = accept;
    input.style.display = 'none';
    let settled = false;
    const done = (f: File | null): void => {
      if (settled) return;
      settled = true;
      input.remove();
      resolve(f);
    };
    input.addEventListener('change', () => done(input.files?.[0] ?? null));
    input.addEventListener('cancel', () => done(null));
    document.body.append(input);
    input.click();
  });
}

/**
 * POSTs a file (or bytes) to a route with ?name= over XHR, whose upload progress fetch does not
 * report, telling upload-progress as it goes; resolves with the server's FileResult. Stopped by
 * the user (stopUpload), it resolves as cancelled.
 */
export function uploadBytes(
  route: string,
  name: string,
  data: Uint8Array | Blob,
): Promise<FileResult> {
  const body = data instanceof Blob ? data : new Blob([data as BlobPart]);
  const load: FileLoad = route === HTTP_ROUTES.importCapture ? 'import' : 'open';
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${route}?name=${encodeURIComponent(name)}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => uploadProgress(e.loaded);
    // Sent: the server reads it now, and says how far in its update frames.
    xhr.upload.onload = () => uploadEnded();
    xhr.onload = () => {
      uploadEnded();
      try {
        resolve(uploadResult(xhr.status, xhr.responseText, name, load));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    };
    xhr.onerror = () => {
      uploadEnded();
      reject(new Error(`the upload of ${name} failed: is kvscope serve still running?`));
    };
    xhr.onabort = () => {
      uploadEnded();
      resolve({ status: 'cancelled', name, load });
    };
    uploadStarted(name, body.size, () => xhr.abort());
    xhr.send(body);
  });
}

/** A reply's text as the FileResult the server sent, null when it is not one. */
function sentResult(text: string): FileResult | null {
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  return parsed && typeof parsed === 'object' && 'status' in parsed ? (parsed as FileResult) : null;
}

/** The server's answer to an upload as a FileResult. */
function uploadResult(status: number, text: string, name: string, load: FileLoad): FileResult {
  const sent = sentResult(text);
  if (sent) return sent;
  if (status < 200 || status >= 300)
    return failed(load, refusalReason(text) ?? (text || `HTTP ${status}`), name);
  return loaded(load, name);
}

/** Picks a file and uploads it; a cancel resolves as cancelled. */
export async function pickAndUpload(route: string, accept: string): Promise<FileResult> {
  const file = await pickFile(accept);
  if (!file) return CANCELLED;
  // The File itself, not its bytes read first: the upload (and its progress) starts at once.
  return uploadBytes(route, file.name, file);
}

/**
 * Downloads a URL of the server (same origin) under a suggested name. The reply is read first: a
 * refusal (a full disk, a bad filter) comes back as its FileResult with the server's reason, which
 * an `<a download>` of the URL would drop unread; a good reply's body is handed to the download.
 */
export async function downloadUrl(
  url: string,
  name: string,
  action: 'save' | 'export',
): Promise<FileResult> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch {
    return failed(action, 'kvscope serve did not answer: is it still running?', name);
  }
  if (!res.ok) return refusal(res.status, await res.text(), action, name);
  return clickDownload(await res.blob(), name);
}

/** The server's refusal of a download as a FileResult, its reason kept. */
function refusal(
  status: number,
  text: string,
  action: 'save' | 'export',
  name: string,
): FileResult {
  const sent = sentResult(text);
  // The server's refusal names no file: the notice names the one the user asked for.
  if (sent?.status === 'failed') return { ...sent, name: sent.name ?? name };
  return (
    sent ??
    failed(
      action,
      refusalReason(text) ?? (text || `kvscope serve refused it (HTTP ${status})`),
      name,
    )
  );
}

/** Hands bytes to the browser's download under a name (an object URL, revoked once taken). */
function clickDownload(blob: Blob, name: string): FileResult {
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // The browser reads the object URL after the click returns: revoke it later, not now.
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
  return done('downloading', name);
}

/** Downloads bytes made here (a chart PNG) as a file. */
export function downloadBytes(data: Uint8Array, name: string, type: string): FileResult {
  return clickDownload(new Blob([data as BlobPart], { type }), name);
}

/** A file name with the current local time: kvscope-2026-11-30-0712.png. */
export function stampedName(prefix: string, ext: string): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}`;
  return `${prefix}-${stamp}.${ext}`;
}
