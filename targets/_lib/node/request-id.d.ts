export declare function nextRequestId(): string;
export declare function responseTime(start: bigint): string;
