/**
 * Writes config/demo-directory.json, the directory `npm run demo` loads: 1,000 users and 50 groups
 * of about 20 members each, with the names real directories hold — accents, apostrophes, a double
 * quote and a backslash, a `+` in an e-mail address — and two inactive accounts. Deterministic: the
 * same seed writes the same file, byte for byte.
 *
 *   npx tsx tools/generate-demo-directory.ts [--seed N] [--out PATH]
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { validateSnapshot } from '../src/domain/snapshot.js';

/** Names are written as comma-separated text: a list literal would take a line per name. */
function list(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const USERS = 1000;
const GROUPS = 50;
const DOMAIN = 'example.com';

const GIVEN = list(`
  Ada, Alan, Amara, Anders, Aoife, Arjun, Beatriz, Bjørn, Camille, Carlos, Chen, Chloé, Daniel,
  Dmitri, Elena, Emeka, Emma, Fatima, François, Grace, Hana, Hannah, Hiroshi, Ingrid, Isabel,
  Jakub, Jamal, Javier, Jonas, Kai, Katarzyna, Kwame, Laila, Lars, Leila, Lucía, Mai, Malik,
  Margaret, María, Mateo, Mei, Mohammed, Nadia, Niamh, Noah, Olga, Omar, Paulo, Priya, Rafael,
  Rania, Ravi, Rosa, Sakura, Samuel, Sanjay, Sofia, Søren, Tariq, Thandiwe, Tomás, Valentina,
  Wei, Yara, Yusuf, Zainab, Zoltán
`);

const FAMILY = list(`
  Abara, Adeyemi, Almeida, Andersen, Bauer, Becker, Bianchi, Brown, Castillo, Chen, Costa,
  Dubois, Dvořák, Eriksson, Fernández, Fischer, García, Gómez, Gupta, Haddad, Hansen, Hernández,
  Horvath, Ibrahim, Ivanova, Jansen, Jones, Kaur, Khan, Kim, Kowalski, Larsen, Lefèvre,
  Lindqvist, López, Mahlangu, Martin, Moreau, Müller, Murphy, Nakamura, Nguyen, Novak, Okafor,
  Olsen, Patel, Pereira, Petrov, Quispe, Rossi, Santos, Sato, Schmidt, Silva, Singh, Smith,
  Suzuki, Tanaka, Taylor, Van der Berg, Wang, Weber, Williams, Yılmaz, Zhang, Ziegler
`);

const TEAMS = list(`
  Engineering, Platform, Data Science, Analytics, Security, Site Reliability, QA, Mobile,
  Frontend, Backend, Infrastructure, Product, Design, Research, Sales, Sales EMEA, Sales APAC,
  Sales Americas, Marketing, Growth, Customer Success, Support, Support Tier 2, Finance,
  Accounting, Legal, Compliance, People, Recruiting, IT, Facilities, Procurement, Partnerships,
  Communications, Executive, Operations, Business Intelligence, Data Engineering, ML Platform,
  Documentation, Developer Relations, Solutions Engineering, Training, Internal Tools, Billing,
  Localization, Accessibility, R&D — Zürich, Office "Berlin", Mentoring
`);

/** Fixed people who make names and addresses awkward; they come first, so their ids are stable. */
const AWKWARD: { given: string; family: string; local?: string; active?: boolean }[] = [
  { given: 'Zoë', family: 'Ångström' },
  { given: 'José', family: 'Núñez' },
  { given: 'Robert "Bobby"', family: 'Tables\\Drop', local: 'bobby.tables' },
  { given: 'Siobhán', family: "O'Brien-Ní Dhomhnaill", local: 'siobhan.obrien' },
  { given: 'Wei', family: 'Chen', local: 'chen.wei+it' },
  { given: 'Łukasz', family: 'Żółkiewski' },
  { given: 'Thị Minh Khai', family: 'Nguyễn', local: 'khai.nguyen' },
  { given: 'Björk', family: 'Guðmundsdóttir', active: false },
  { given: 'Dmitri', family: 'Ivanov', active: false },
];

interface DemoUser {
  id: string;
  userName: string;
  name: { givenName: string; familyName: string };
  emails: { value: string; primary: true; type: 'work' }[];
  active: boolean;
}

/** xorshift32: small, seeded, and the same everywhere. */
function randomFrom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}

/** `Zoë Ångström` → `zoe.angstrom`: what a mail system would make of a name. */
function localPart(given: string, family: string): string {
  const fold = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[łŁ]/g, 'l')
      .replace(/[øØ]/g, 'o')
      .replace(/[ðÐ]/g, 'd')
      .replace(/ı/g, 'i')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
  return `${fold(given)}.${fold(family)}`;
}

function buildUsers(random: () => number): DemoUser[] {
  const taken = new Set<string>();
  const users: DemoUser[] = [];
  const add = (given: string, family: string, local = localPart(given, family), active = true) => {
    let candidate = local;
    for (let n = 2; taken.has(candidate); n++) candidate = `${local}${n}`;
    taken.add(candidate);
    const address = `${candidate}@${DOMAIN}`;
    users.push({
      id: `u-${String(users.length + 1).padStart(4, '0')}`,
      userName: address,
      name: { givenName: given, familyName: family },
      emails: [{ value: address, primary: true, type: 'work' }],
      active,
    });
  };
  for (const person of AWKWARD) add(person.given, person.family, person.local, person.active);
  while (users.length < USERS) {
    const given = GIVEN[Math.floor(random() * GIVEN.length)] ?? 'Alex';
    const family = FAMILY[Math.floor(random() * FAMILY.length)] ?? 'Doe';
    add(given, family);
  }
  return users;
}

function buildGroups(random: () => number, users: readonly DemoUser[]) {
  return TEAMS.slice(0, GROUPS).map((displayName, index) => {
    const size = 15 + Math.floor(random() * 11);
    const members = new Set<string>();
    while (members.size < size) members.add(users[Math.floor(random() * users.length)]?.id ?? 'u-0001');
    // The awkward people are in a group or two, so they reach the target's groups as well.
    if (index < AWKWARD.length) members.add(users[index]?.id ?? 'u-0001');
    return { id: `g-${String(index + 1).padStart(2, '0')}`, displayName, members: [...members].sort() };
  });
}

/** One item per line: small enough to diff, easy to read. */
function render(snapshot: { users: unknown[]; groups: unknown[] }): string {
  const list = (items: unknown[]) => items.map((item) => `    ${JSON.stringify(item)}`).join(',\n');
  return `{\n  "users": [\n${list(snapshot.users)}\n  ],\n  "groups": [\n${list(snapshot.groups)}\n  ]\n}\n`;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '20240401' },
      out: {
        type: 'string',
        default: fileURLToPath(new URL('../config/demo-directory.json', import.meta.url)),
      },
    },
  });
  const random = randomFrom(Number(values.seed));
  const users = buildUsers(random);
  const groups = buildGroups(random, users);
  validateSnapshot({ users, groups });
  writeFileSync(values.out, render({ users, groups }));
  console.log(`wrote ${values.out}: ${users.length} users, ${groups.length} groups`);
}

main();
