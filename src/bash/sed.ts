/** What a sed script does besides printing: the files its `w` commands and flags write, and whether it runs programs (`e`). */

export interface SedScript {
  writes: string[];
  executes: boolean;
  /** Something this reader does not know: assume the worst. */
  unsure: boolean;
}

export function readSedScript(script: string): SedScript {
  const out: SedScript = { writes: [], executes: false, unsure: false };
  let i = 0;
  const at = (k = 0): string => script[i + k] ?? '';
  const restOfLine = (): string => {
    const end = script.indexOf('\n', i);
    const text = script.slice(i, end === -1 ? script.length : end);
    i = end === -1 ? script.length : end + 1;
    return text;
  };
  const skipBlanks = (): void => {
    while (at() === ' ' || at() === '\t') i++;
  };
  /** Skips text up to an unescaped delimiter; false when it never comes. */
  const skipPart = (delim: string): boolean => {
    while (i < script.length) {
      if (at() === '\\') i += 2;
      else if (at() === delim) {
        i++;
        return true;
      } else i++;
    }
    return false;
  };
  const address = (): boolean => {
    if (/\d/.test(at())) {
      while (/\d/.test(at())) i++;
      if (at() === '~') {
        i++;
        while (/\d/.test(at())) i++;
      }
    } else if (at() === '$') i++;
    else if (at() === '/' || at() === '\\') {
      const delim = at() === '\\' ? at(1) : '/';
      i += at() === '\\' ? 2 : 1;
      if (!skipPart(delim)) return false;
      while (at() === 'I' || at() === 'M') i++;
    }
    return true;
  };

  while (i < script.length && !out.unsure) {
    while (i < script.length && /[\s;]/.test(at())) i++;
    if (i >= script.length) break;
    if (!address()) return { ...out, unsure: true };
    if (at() === ',') {
      i++;
      if (at() === '+' || at() === '~') {
        i++;
        while (/\d/.test(at())) i++;
      } else if (!address()) return { ...out, unsure: true };
    }
    skipBlanks();
    while (at() === '!') {
      i++;
      skipBlanks();
    }
    const c = script[i++] ?? '';
    switch (c) {
      case '{':
      case '}':
      case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n': case 'N': case 'p': case 'P': case 'x': case 'z': case 'F':
        break;
      case '#':
        restOfLine();
        break;
      case ':': case 'b': case 't': case 'T': case 'v':
        while (i < script.length && at() !== ';' && at() !== '\n') i++;
        break;
      case 'l': case 'L': case 'q': case 'Q':
        skipBlanks();
        while (/\d/.test(at())) i++;
        break;
      case 'a': case 'i': case 'c':
        // Text to the end of the line; a trailing backslash continues it.
        do {
          const line = restOfLine();
          if (!line.endsWith('\\')) break;
        } while (i < script.length);
        break;
      case 'r': case 'R':
        restOfLine();
        break;
      case 'w': case 'W':
        out.writes.push(restOfLine().trim());
        break;
      case 'e':
        out.executes = true;
        restOfLine();
        break;
      case 's': {
        const delim = script[i++] ?? '';
        if (!delim || delim === '\n' || delim === '\\' || !skipPart(delim) || !skipPart(delim)) return { ...out, unsure: true };
        while (/[gpiImMe0-9]/.test(at())) {
          if (at() === 'e') out.executes = true;
          i++;
        }
        if (at() === 'w') {
          i++;
          out.writes.push(restOfLine().trim());
        }
        break;
      }
      case 'y': {
        const delim = script[i++] ?? '';
        if (!delim || !skipPart(delim) || !skipPart(delim)) return { ...out, unsure: true };
        break;
      }
      default:
        out.unsure = true;
    }
  }
  return out;
}
