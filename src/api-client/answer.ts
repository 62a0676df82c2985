/** An HTTP answer as the API client read it: the body is read whole, and parsed when it is JSON. */

export type Headers = Record<string, string | string[] | undefined>;

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** The URL the request went to (the base of relative links in it, RFC 3986 §5.1.3). */
  readonly url: URL;
  /** The parsed JSON body; undefined when the body is empty or not JSON (`text` has it). */
  readonly body: unknown;
  readonly isJson: boolean;
  readonly text: string;
}

export function readAnswer(status: number, headers: Headers, url: URL, text: string): Answer {
  if (text.trim() === '') return { status, headers, url, body: undefined, isJson: false, text };
  try {
    return { status, headers, url, body: JSON.parse(text) as unknown, isJson: true, text };
  } catch {
    return { status, headers, url, body: undefined, isJson: false, text };
  }
}

/** A header's value (the first one, when it came several times). */
export function header(headers: Headers, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The path of a URL, as messages name a route: never the query, which may carry a cursor or token. */
export function routeOf(url: URL): string {
  return url.pathname;
}
