/** What the demo hands over once it serves: where everything is, the keys, and what to try. */
export interface Handover {
  /** The bridge's base URL as the CLI reaches it. */
  bridgeUrl: string;
  /** The interface the bridge listens on (HOST). */
  host: string;
  port: number;
  adminToken: string;
  scimToken: string;
  webhookSecret: string;
  /** The reference target, when the demo runs it (TARGET_URL unset). */
  target?: { scimUrl: string; token: string };
  /** Where the demo's tokens are kept across starts. */
  tokensFile: string;
  /** A userName the loaded directory holds, for the `explain` example. */
  exampleUser: string;
}

/** The user the handover's example pushes through SCIM, as an IdP would. */
export const PUSHED_USER = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: 'pat.pushed@example.com',
  externalId: 'idp-pat-0001',
  name: { givenName: 'Pat', familyName: 'Pushed' },
  emails: [{ value: 'pat.pushed@example.com', primary: true }],
};

/** Hosts the CLI's default URL (http://127.0.0.1:$PORT) reaches. */
const REACHED_BY_DEFAULT = new Set(['127.0.0.1', 'localhost', '0.0.0.0', '::', '::1']);

/**
 * The text printed under the summary: the URLs, the keys, an `export` block for the CLI (the names
 * it reads: ADMIN_TOKEN, WEBHOOK_SECRET, PORT, and BRIDGE_URL for send-event) and commands that show
 * the two inputs the demo runs side by side: the directory file (`directory:directory`) and SCIM
 * push (`scim`), each keeping to its own (SPEC §6, Ownership).
 */
export function formatHandover(h: Handover): string {
  const url = REACHED_BY_DEFAULT.has(h.host) ? '' : ' --url "$BRIDGE_URL"';
  const rows: [string, string, string][] = [
    ['Admin UI', `${h.bridgeUrl}/admin/ui`, 'sign in with ADMIN_TOKEN'],
    ['Admin API', `${h.bridgeUrl}/admin/status`, 'bearer ADMIN_TOKEN'],
    ['SCIM endpoint', `${h.bridgeUrl}/scim/v2`, 'bearer INBOUND_SCIM_TOKEN'],
    ['Events', `${h.bridgeUrl}/webhooks/events`, 'signed with WEBHOOK_SECRET'],
  ];
  if (h.target) rows.push(['Reference target', h.target.scimUrl, `bearer ${h.target.token}`]);
  return [
    listeningLine(h.host, h.port),
    '',
    ...alignRows(rows),
    '',
    `Tokens: kept in ${h.tokensFile}, the same at every start (delete the file for new ones).`,
    'For the CLI, in another shell:',
    '',
    `  export BRIDGE_URL=${shellWord(h.bridgeUrl)} PORT=${h.port}`,
    `  export ADMIN_TOKEN=${shellWord(h.adminToken)}`,
    `  export WEBHOOK_SECRET=${shellWord(h.webhookSecret)}`,
    `  export INBOUND_SCIM_TOKEN=${shellWord(h.scimToken)}`,
    '',
    'Then try the two inputs side by side: the directory file and SCIM push, each keeping to its own.',
    '',
    "  # Identities per input: the file's belong to directory:directory.",
    `  npx scim-bridge status${url}`,
    `  npx scim-bridge explain user ${shellWord(h.exampleUser)}${url}`,
    "  # Push a user as an IdP would: it belongs to scim, and reaches the platform beside the file's.",
    `  curl -s -X POST -H "Authorization: Bearer $INBOUND_SCIM_TOKEN" -H 'Content-Type: application/scim+json' -d '${JSON.stringify(PUSHED_USER)}' "$BRIDGE_URL/scim/v2/Users"`,
    "  # What the IdP sees: only what it pushed, not the file's users.",
    '  curl -s -H "Authorization: Bearer $INBOUND_SCIM_TOKEN" "$BRIDGE_URL/scim/v2/Users?count=2"',
    "  # Found by the IdP's externalId; owner scim.",
    `  npx scim-bridge explain user ${PUSHED_USER.externalId}${url}`,
    '  # A full sync of the file replaces only what the file owns: the pushed user stays.',
    `  npx scim-bridge sync --wait${url}`,
    '',
    'Serving until Ctrl-C.',
    '',
  ].join('\n');
}

function listeningLine(host: string, port: number): string {
  if (host === '127.0.0.1' || host === '::1' || host === 'localhost') {
    return `Listening on ${host}:${port} only: set HOST=0.0.0.0 to serve other machines.`;
  }
  return `Listening on ${host}:${port} (HOST): other machines may reach it, and the tokens below open it.`;
}

function alignRows(rows: [string, string, string][]): string[] {
  const width = (column: 0 | 1) => Math.max(...rows.map((row) => row[column].length));
  return rows.map(([name, where, how]) => `${name.padEnd(width(0))}  ${where.padEnd(width(1))}  ${how}`);
}

/** A value as one shell word: as it is when that is safe, else single-quoted. */
export function shellWord(value: string): string {
  return /^[\w.:/@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
