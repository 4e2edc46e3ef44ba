// Seed 000's smart-home endpoints: device statuses, commands and the long poll.
import { Body, Controller, Get, Header, HttpCode, HttpStatus, Param, Post, Query } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import * as c from './contract';
import { ContractError } from './contract-error.filter';

@Controller()
export class DevicesController {
  @Get('devices/status')
  @Header('Content-Type', c.JSON_TYPE)
  status(): string {
    return c.DEVICES_BODY;
  }

  @Post('devices/:id/command')
  @HttpCode(HttpStatus.OK)
  async command(@Param('id') rawId: string, @Body() body: unknown) {
    const id = c.parseUint(rawId);
    if (!(id >= 1 && id !== Infinity)) {
      throw new ContractError(HttpStatus.BAD_REQUEST, 'device id must be a positive integer below 2^53');
    }
    const reason = c.commandError(body);
    if (reason) throw new ContractError(HttpStatus.BAD_REQUEST, reason);
    await sleep(c.COMMAND_LATENCY_MS);
    return { deviceId: id, action: (body as c.Command).action, status: 'accepted', latencyMs: c.COMMAND_LATENCY_MS };
  }

  @Get('events/live')
  async live(@Query('wait') rawWait: c.QueryValue) {
    const wait = c.waitMs(c.firstValue(rawWait));
    if (wait === null) throw new ContractError(HttpStatus.BAD_REQUEST, 'wait must be a non-negative integer');
    if (wait > 0) await sleep(wait);
    return { event: 'motion', deviceId: 5, ts: Date.now() };
  }
}
