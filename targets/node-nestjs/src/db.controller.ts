// Seed 001's and seed 002/003's database endpoints, through the DatabaseService provider.
import { Controller, Get, Header, HttpStatus, Param, Query } from '@nestjs/common';
import * as c from './contract';
import { ContractError } from './contract-error.filter';
import { DatabaseService, Row } from './database.service';

@Controller('api/db')
export class DbController {
  constructor(private readonly db: DatabaseService) {}

  @Get('ping')
  @Header('Content-Type', c.JSON_TYPE)
  ping(): Promise<string> {
    return this.run(() => this.db.ping()); // the statement's text, unchanged
  }

  @Get('time')
  @Header('Content-Type', c.JSON_TYPE)
  time(): Promise<string> {
    return this.run(() => this.db.time());
  }

  @Get('document/:id')
  async document(@Param('id') rawId: string): Promise<Row> {
    this.requireDb();
    const id = c.parseUint(rawId);
    if (!(id >= 1)) throw new ContractError(HttpStatus.BAD_REQUEST, 'document id must be a positive integer');
    const row = id > c.MAX_INT4 ? undefined : await this.run(() => this.db.document(id));
    if (row === undefined) throw new ContractError(HttpStatus.NOT_FOUND, `no document with id ${rawId}`);
    return row;
  }

  @Get('documents')
  documents(@Query('limit') rawLimit: c.QueryValue): Promise<Row[]> {
    this.requireDb();
    const raw = c.firstValue(rawLimit);
    const limit = raw === undefined ? 10 : c.parseUint(raw);
    if (!(limit >= 1 && limit <= 100)) {
      throw new ContractError(HttpStatus.BAD_REQUEST, 'limit must be an integer in 1..100');
    }
    return this.run(() => this.db.documents(limit));
  }

  // Without DATABASE_URL the routes exist but answer 503, so a misconfiguration is visible.
  private requireDb(): void {
    if (!this.db.enabled) {
      throw new ContractError(HttpStatus.SERVICE_UNAVAILABLE, 'database not configured (DATABASE_URL is unset)');
    }
  }

  // run answers 500 with the driver's message when the query fails.
  private async run<T>(query: () => Promise<T>): Promise<T> {
    this.requireDb();
    try {
      return await query();
    } catch (err) {
      throw new ContractError(HttpStatus.INTERNAL_SERVER_ERROR, `database error: ${(err as Error).message}`);
    }
  }
}
