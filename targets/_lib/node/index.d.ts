// Types of @gauntlet/target-kit, for the TypeScript target (node-nestjs).
export * from './contract';
export * from './config';
export * from './db';
export * from './cluster';
export * from './worker';
