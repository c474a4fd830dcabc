// Which Node.js the project runs on: package.json `engines` is the one home of the rule; this reads
// it and says, in one line, what an unsupported Node.js lacks and where the README says to get one.
import manifest from '../package.json' with { type: 'json' };

type Version = [number, number, number];

function parse(text: string): Version {
  const parts = text.split('.').map(Number);
  if (parts.length > 3 || parts.some((part) => !Number.isInteger(part) || part < 0))
    throw new Error(`not a Node.js version: ${text}`);
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Whether `version` meets one comparator of a range: `^x.y.z`, `~x.y.z`, `>=x`, `>x`, `<=x`, `<x` or `x.y.z`. */
function meets(version: Version, comparator: string): boolean {
  const match = /^(\^|~|>=|>|<=|<|=)?v?(\d+(?:\.\d+){0,2})$/.exec(comparator);
  if (!match)
    throw new Error(`package.json engines.node: ${comparator} is not a comparator this check reads`);
  const [, operator = '=', text = ''] = match;
  const bound = parse(text);
  const order = compare(version, bound);
  if (operator === '^') return order >= 0 && version[0] === bound[0];
  if (operator === '~') return order >= 0 && version[0] === bound[0] && version[1] === bound[1];
  if (operator === '>=') return order >= 0;
  if (operator === '>') return order > 0;
  if (operator === '<=') return order <= 0;
  if (operator === '<') return order < 0;
  return order === 0;
}

/** Whether `version` (`24.11.0`) is in `range` (npm's: alternatives joined by `||`, each comparators joined by spaces). */
export function satisfies(version: string, range: string): boolean {
  const parsed = parse(version.replace(/^v/, ''));
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((comparator) => meets(parsed, comparator)),
  );
}

/** The one line an unsupported Node.js is told, or undefined when `version` is one `engines` allows. */
export function unsupportedNode(
  version: string,
  execPath: string,
  range = manifest.engines.node,
): string | undefined {
  if (satisfies(version, range)) return undefined;
  return (
    `temporal-mcp-gateway needs Node.js ${range} (package.json engines), and this is Node.js ${version} ` +
    `(${execPath}): see README.md, Run it: export PATH="$(bash scripts/install-node.sh):$PATH" puts a ` +
    'Node.js 26 first on PATH (or nvm install 26)'
  );
}
