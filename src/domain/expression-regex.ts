/**
 * The regular expressions an admin may write in a scope or mapping (`replace`, `matches`), held to
 * patterns JavaScript's backtracking engine runs in bounded time on bounded input: a literal in the
 * expression (checked when the configuration loads, never built from an identity's values), at most
 * MAX_PATTERN characters, without backreferences or lookaround, and without a quantified group that
 * itself holds a quantifier or an alternation (`(a+)+`, `(a|aa)*`: the shapes of catastrophic
 * backtracking). `replace` also refuses input over MAX_REGEX_INPUT characters.
 */

export const MAX_PATTERN = 200;
export const MAX_REGEX_INPUT = 4096;

/** Why a pattern is refused, or undefined when it may be used. */
export function regexProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_PATTERN) return `a pattern longer than ${MAX_PATTERN} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'not a valid regular expression';
  }
  return shapeProblem(pattern);
}

interface Group {
  quantifier: boolean;
  alternation: boolean;
}

function shapeProblem(pattern: string): string | undefined {
  const stack: Group[] = [{ quantifier: false, alternation: false }];
  let last: Group | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const top = stack[stack.length - 1] as Group;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9k]/.test(next)) return 'a backreference';
      i++;
      last = undefined;
    } else if (c === '[') {
      i = classEnd(pattern, i);
      last = undefined;
    } else if (c === '(') {
      if (/^\(\?<?[=!]/.test(pattern.slice(i, i + 4))) return 'a lookaround';
      stack.push({ quantifier: false, alternation: false });
      last = undefined;
    } else if (c === ')') {
      last = stack.pop();
      const parent = stack[stack.length - 1];
      if (parent && last) {
        parent.quantifier ||= last.quantifier;
        parent.alternation ||= last.alternation;
      }
      continue;
    } else if (c === '|') {
      top.alternation = true;
      last = undefined;
    } else if (quantifier(pattern, i) !== undefined) {
      const repeats = quantifier(pattern, i) === 'repeat';
      if (repeats && last && (last.quantifier || last.alternation)) return 'a nested quantifier';
      top.quantifier ||= repeats;
      if (c === '{') i = pattern.indexOf('}', i);
      last = undefined;
      continue;
    } else {
      last = undefined;
    }
  }
  return undefined;
}

/** `repeat`: may match its operand many ways (`*`, `+`, a range); `once`: `?`, `{n}`, a lazy mark. */
function quantifier(pattern: string, at: number): 'repeat' | 'once' | undefined {
  const c = pattern[at];
  if (c === '*' || c === '+') return 'repeat';
  if (c === '?') return pattern[at - 1] === '(' ? undefined : 'once';
  if (c !== '{') return undefined;
  const body = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at));
  if (!body) return undefined;
  return body[2] !== undefined && body[3] !== body[1] ? 'repeat' : 'once';
}

function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']' && i > start + 1) return i;
  }
  return pattern.length;
}
