// The previous hash of a chain's first block. No imports, so workflow code (which must not load
// node: modules, as block.ts does) can use it as well as the activities.
export const GENESIS_HASH = '0'.repeat(64);
