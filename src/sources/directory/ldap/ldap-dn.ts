/**
 * A comparison key for distinguished names (RFC 4514), so that a `member` value matches the DN the
 * server returns for the entry however either is spelled: attribute types and values compared
 * without case (the naming attributes in use — cn, uid, ou, dc — all match case-insensitively),
 * spaces around separators ignored, escapes (`\,` or `\2C`, `\C3\A9`) decoded, and the attributes
 * of a multi-valued RDN (`cn=a+uid=b`) in any order.
 */
export function dnKey(dn: string): string {
  return JSON.stringify(parseDn(dn).map((rdn) => rdn.sort()));
}

/** RDNs, each a list of `type=value` with the value decoded and both lower-cased. */
function parseDn(dn: string): string[][] {
  const rdns: string[][] = [];
  let avas: string[] = [];
  let type = '';
  let value = new ValueBuilder();
  let inValue = false;
  const endAva = () => {
    if (type.trim() !== '' || inValue) avas.push(`${type.trim().toLowerCase()}=${value.finish()}`);
    type = '';
    value = new ValueBuilder();
    inValue = false;
  };
  for (let i = 0; i < dn.length; i++) {
    const char = dn.charAt(i);
    if (char === '\\' && inValue) {
      i += value.escape(dn, i + 1);
    } else if (char === '=' && !inValue) {
      inValue = true;
    } else if (char === '+') {
      endAva();
    } else if (char === ',' || char === ';') {
      endAva();
      rdns.push(avas);
      avas = [];
    } else if (inValue) {
      value.append(char);
    } else {
      type += char;
    }
  }
  endAva();
  if (avas.length > 0) rdns.push(avas);
  return rdns;
}

/** Collects a value's characters; escaped hex pairs are UTF-8 bytes. Unescaped edge spaces drop. */
class ValueBuilder {
  private text = '';
  private bytes: number[] = [];
  /** Length of the text that must stay: up to the last escaped or non-space character. */
  private kept = 0;

  append(char: string): void {
    this.flush();
    if (this.text === '' && char === ' ') return;
    this.text += char;
    if (char !== ' ') this.kept = this.text.length;
  }

  /** Reads the escape after a backslash at `at`; returns how many characters it used. */
  escape(dn: string, at: number): number {
    const pair = dn.slice(at, at + 2);
    if (/^[0-9a-fA-F]{2}$/.test(pair)) {
      this.bytes.push(parseInt(pair, 16));
      return 2;
    }
    this.flush();
    this.text += dn.charAt(at);
    this.kept = this.text.length;
    return 1;
  }

  finish(): string {
    this.flush();
    return this.text.slice(0, this.kept).toLowerCase();
  }

  private flush(): void {
    if (this.bytes.length === 0) return;
    this.text += Buffer.from(this.bytes).toString('utf8');
    this.kept = this.text.length;
    this.bytes = [];
  }
}
