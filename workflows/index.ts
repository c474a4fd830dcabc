// Entry point the worker bundles: every workflow type it serves.
export { mineChain } from './mining/mine-chain.ts';
