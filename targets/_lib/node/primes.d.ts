export declare function primesBelow(n: number): number[];
