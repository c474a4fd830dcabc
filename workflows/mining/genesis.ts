// The previous hash of a chain's first block: part of the chain's definition, which the workflow and
// the miner (activities/pow/) share.
export const GENESIS_HASH = '0'.repeat(64);
