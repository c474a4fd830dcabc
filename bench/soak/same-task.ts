// Whether two task ids a client saw name one task: the same tool prefix and 128-bit body, whichever
// form each has (the key, the key with its slot and run, or a `~` id of an unconfirmed start).
function prefixAndBody(taskId: string): string | undefined {
  // Read from the end, as the gateway does: a prefix may hold `-`, a body may begin with one.
  const match =
    /^(.+)~([A-Za-z0-9_-]{35})$/.exec(taskId) ??
    /^(.+)-([A-Za-z0-9_-]{32})(?:\.[A-Za-z0-9_-]{35})?$/.exec(taskId);
  if (!match) return undefined;
  const body = Buffer.from(match[2] as string, 'base64url').subarray(0, 16);
  return `${match[1]} ${body.toString('hex')}`;
}

export function sameTask(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const [x, y] = [prefixAndBody(a), prefixAndBody(b)];
  return x !== undefined && x === y;
}
