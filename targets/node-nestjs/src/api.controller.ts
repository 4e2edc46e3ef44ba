// Seed 001's static endpoints and seed 003's CPU-bound primes.
import { Controller, Get, Header, HttpStatus, Query } from '@nestjs/common';
import * as c from './contract';
import { ContractError } from './contract-error.filter';

@Controller('api')
export class ApiController {
  @Get('ping')
  @Header('Content-Type', c.JSON_TYPE)
  ping(): string {
    return c.PING_BODY; // pre-serialized, as seed 001's Node service does
  }

  @Get('time')
  time(): { serverTime: number } {
    return { serverTime: Math.floor(Date.now() / 1000) };
  }

  @Get('cpu/primes')
  primes(@Query('n') n: c.QueryValue): number[] {
    const raw = c.firstValue(n);
    const limit = raw === undefined ? 1000000 : c.parseUint(raw);
    if (!(limit >= 2 && limit <= c.MAX_PRIMES_N)) {
      throw new ContractError(HttpStatus.BAD_REQUEST, 'n must be an integer in 2..10000000');
    }
    return c.primesBelow(limit);
  }
}
