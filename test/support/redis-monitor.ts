import { connect } from 'node:net';

/**
 * Watches the commands a Redis server receives (MONITOR) on a socket of its own, reading the
 * protocol's lines directly. Not ioredis's monitor(): it enters monitoring mode only once the OK
 * has been handled, so on a busy server the lines read with that OK go to its empty command queue
 * and come out as "Command queue state error" errors.
 */
export interface RedisMonitor {
  close(): void;
}

/** Resolves once the server has answered MONITOR; `onCommand` gets each command's arguments. */
export function monitorRedis(url: string, onCommand: (args: string[]) => void): Promise<RedisMonitor> {
  const { hostname, port, username, password } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port || '6379') });
  const auth = password === '' ? [] : [['AUTH', ...(username ? [username] : []), password]];
  let awaitingOk = auth.length + 1;
  let pending = '';
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.on('connect', () => {
      for (const command of [...auth, ['MONITOR']]) socket.write(encode(command));
    });
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\r\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('-')) {
          socket.destroy();
          return reject(new Error(`Redis refused to monitor: ${line.slice(1)}`));
        }
        if (awaitingOk > 0) {
          if (--awaitingOk === 0) resolve({ close: () => socket.destroy() });
        } else {
          onCommand(commandArguments(line));
        }
      }
    });
  });
}

function encode(args: readonly string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/** `+1795680125.243448 [0 127.0.0.1:43926] "evalsha" "…"`: the quoted arguments, unescaped. */
function commandArguments(line: string): string[] {
  const quoted = line.slice(line.indexOf('] ') + 2).matchAll(/"((?:[^"\\]|\\.)*)"/g);
  return [...quoted].map((match) => (match[1] ?? '').replace(/\\(["\\])/g, '$1'));
}
