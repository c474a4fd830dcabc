export { mineBlock } from './mine-block.ts';
export { publishChain } from './publish-chain.ts';
