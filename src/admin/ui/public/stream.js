// @ts-check
/**
 * Browser module: a server-sent event stream read with fetch, so that the admin token travels in the
 * Authorization header as for every other call (EventSource cannot send a header, and the token is
 * never put in a URL or a cookie).
 */
import { adminUrl, ApiError, session, unauthorized } from './api.js';

/**
 * Reads the event stream at path until the bridge ends it or the signal aborts; onEvent gets each
 * event's name and parsed data. Rejects with an ApiError when the bridge refuses or cannot be reached.
 *
 * @param {string} path relative to the admin API, e.g. 'sync/sync-…/events'
 * @param {(name: string, data: unknown) => void} onEvent
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
export async function readEvents(path, onEvent, signal) {
  const token = session.get();
  if (!token) {
    unauthorized();
    throw new ApiError(401, 'unauthorized', 'Not signed in');
  }
  /** @type {Response} */
  let response;
  try {
    response = await fetch(adminUrl(path), {
      headers: { Authorization: 'Bearer ' + token, Accept: 'text/event-stream' },
      cache: 'no-store',
      credentials: 'omit',
      redirect: 'error',
      signal: signal,
    });
  } catch {
    if (signal.aborted) return;
    throw new ApiError(0, 'network', 'The bridge did not answer');
  }
  if (response.status === 401) unauthorized();
  if (!response.ok || !response.body) throw await refusal(response);
  const reader = response.body.pipeThrough(new window.TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += chunk.value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        dispatch(buffer.slice(0, end), onEvent);
        buffer = buffer.slice(end + 2);
      }
    }
  } catch {
    if (signal.aborted) return;
    throw new ApiError(0, 'network', 'The progress stream was cut off');
  }
}

/**
 * One event block: `event:` and `data:` lines; comment lines (keep-alives) carry nothing.
 *
 * @param {string} block
 * @param {(name: string, data: unknown) => void} onEvent
 */
function dispatch(block, onEvent) {
  let name = 'message';
  /** @type {string[]} */
  const data = [];
  for (const line of block.split('\n')) {
    if (line.slice(0, 6) === 'event:') name = line.slice(6).trim();
    else if (line.slice(0, 5) === 'data:') data.push(line.slice(5).trim());
  }
  if (data.length === 0) return;
  try {
    onEvent(name, JSON.parse(data.join('\n')));
  } catch {
    // Not JSON: not an event of the bridge's.
  }
}

/** @param {Response} response an answer that is not a stream */
async function refusal(response) {
  /** @type {{ error?: { code?: string; message?: string } } | null} */
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's error page, say): the status tells what happened.
  }
  const error = (body && body.error) || {};
  return new ApiError(
    response.status,
    error.code || 'http_' + response.status,
    error.message || response.statusText || 'Request failed',
  );
}
