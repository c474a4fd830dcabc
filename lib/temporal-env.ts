export * from '../common/temporal-env.ts';
