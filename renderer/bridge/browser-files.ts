// Browser stand-ins for the desktop's file dialogs: a file picker uploads to `kvscope serve`,
// and saving is a download.

import type { FileResult } from '../../shared/api-types';
import { CANCELLED, done } from '../../shared/file-result';

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

/** POSTs file bytes to a route with ?name=; resolves with the server's FileResult. */
export async function uploadBytes(
  route: string,
  name: string,
  data: Uint8Array,
): Promise<FileResult> {
  const url = `${route}?name=${encodeURIComponent(name)}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Blob([data as BlobPart]),
  });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  if (parsed && typeof parsed === 'object' && 'status' in parsed) return parsed as FileResult;
  if (!res.ok) throw new Error(text || `upload failed: HTTP ${res.status}`);
  return done('opened', name);
}

/** Picks a file and uploads it; a cancel resolves with done: false. */
export async function pickAndUpload(route: string, accept: string): Promise<FileResult> {
  const file = await pickFile(accept);
  if (!file) return CANCELLED;
  return uploadBytes(route, file.name, new Uint8Array(await file.arrayBuffer()));
}

/** Starts a download of a URL (same origin) under a suggested name. */
export function downloadUrl(url: string, name: string): FileResult {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  return done('downloading', name);
}

/** Downloads bytes made here (a chart PNG) as a file. */
export function downloadBytes(data: Uint8Array, name: string, type: string): FileResult {
  const url = URL.createObjectURL(new Blob([data as BlobPart], { type }));
  const result = downloadUrl(url, name);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return result;
}

/** A file name with the current local time: kvscope-2026-11-30-0712.png. */
export function stampedName(prefix: string, ext: string): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}`;
  return `${prefix}-${stamp}.${ext}`;
}
