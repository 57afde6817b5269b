// Renderer entry: make sure window.kvscope exists (the WebSocket bridge in a browser), start
// listening for frames, and render the app.

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { installWsBridgeIfAbsent } from './bridge/ws-bridge';
import { App } from './components/app';
import { startFrames } from './state/frames';
import './styles/base.css';
import './styles/layout.css';
import './styles/overview.css';
import './styles/tables.css';
import './styles/connections.css';
import './styles/insights.css';

installWsBridgeIfAbsent();
startFrames();

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
