export { mineBlock } from './mine-block.ts';
