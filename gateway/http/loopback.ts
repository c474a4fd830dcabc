// What counts as a loopback bind: one predicate for the two decisions that hang on it (running
// without authentication, and the DNS-rebinding Host/Origin checks that then protect the server).

/** 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** The Host / Origin hostnames a loopback-bound server accepts: the usual three and its own. */
export function loopbackHostnames(host: string): string[] {
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  names.add(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
  return [...names];
}
