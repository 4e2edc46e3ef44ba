// The contract's framework-free pieces (@gauntlet/target-kit, shared by every node-* target)
// and this target's names.
export * from '@gauntlet/target-kit/contract';

export const SERVER_NAME = 'node-nestjs'; // the Server header: which target answered
export const FRAMEWORK = 'NestJS'; // /health's framework field
