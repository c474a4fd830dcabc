// Entry point the worker bundles: every workflow type it serves.
export { mineChain } from './mine-chain.ts';
