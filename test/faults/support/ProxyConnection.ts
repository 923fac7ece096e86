import type { Socket } from 'node:net';
import type { CompletionFault, StatementFault } from './Fault';
import { describeStatement, type FaultLog } from './FaultLog';
import { OrderedPipe } from './OrderedPipe';
import { resetSocket } from './resetSocket';
import type { Completion, StatementInfo } from './StatementInfo';
import type { ClientUnit, ServerUnit, WireSession } from './WireSession';

/** Asks whoever drives the proxy what to do at each decision point. */
export interface FaultDecisions {
  statement(statement: StatementInfo): StatementFault | undefined;
  completion(completion: Completion): CompletionFault | undefined;
}

/**
 * One client connection and its connection to the server, forwarding what the session frames
 * and applying the faults decided for it. Either side closing closes the other once what is
 * queued for it has been written; a cut destroys both at once.
 */
export class ProxyConnection {
  /** Resolves once both sockets have closed. */
  readonly closed: Promise<void>;
  private readonly toServer: OrderedPipe;
  private readonly toClient: OrderedPipe;
  private isCut = false;

  constructor(
    readonly id: number,
    private readonly client: Socket,
    private readonly server: Socket,
    private readonly session: WireSession,
    private readonly decisions: FaultDecisions,
    private readonly log: FaultLog,
  ) {
    this.toServer = new OrderedPipe(client, server);
    this.toClient = new OrderedPipe(server, client);
    const closes = [client, server].map((socket) => {
      socket.setNoDelay(true);
      // A reset or a refused upstream ends the connection through 'close'.
      socket.on('error', () => undefined);
      return new Promise<void>((resolve) => socket.once('close', () => resolve()));
    });
    this.closed = Promise.all(closes).then(() => this.stop());
    client.on('data', (chunk: Buffer) => this.fromClient(chunk));
    server.on('data', (chunk: Buffer) => this.fromServer(chunk));
    client.once('close', () => this.toServer.pushEnd());
    server.once('close', () => {
      if (this.isCut) return;
      // What the server said last (a FATAL error, say) still reaches the client.
      this.toClient.push(this.session.drainServer(), 0);
      this.toClient.pushEnd();
    });
  }

  /** Destroys both sides now, dropping whatever is queued either way. */
  cut(): void {
    this.isCut = true;
    this.stop();
    resetSocket(this.client);
    resetSocket(this.server);
  }

  private fromClient(chunk: Buffer): void {
    for (const unit of this.session.fromClient(chunk)) {
      if (this.isCut) return;
      this.forwardStatement(unit);
    }
  }

  private fromServer(chunk: Buffer): void {
    for (const unit of this.session.fromServer(chunk)) {
      if (this.isCut) return;
      this.forwardReply(unit);
    }
  }

  private forwardStatement({ bytes, statement }: ClientUnit): void {
    if (!statement) return this.toServer.push(bytes, 0);
    this.log.statements[statement.kind]++;
    const fault = this.decisions.statement(statement);
    if (!fault) return this.toServer.push(bytes, 0);
    const what = describeStatement(statement);
    if (fault.kind === 'cut-before') {
      this.log.record('cut-before', this.id, what);
      return this.cut();
    }
    this.log.record('delay', this.id, `${what} held ${fault.ms}ms before the server`);
    this.toServer.push(bytes, fault.ms);
  }

  private forwardReply({ bytes, completion }: ServerUnit): void {
    if (!completion) return this.toClient.push(bytes, 0);
    this.log.completions++;
    const fault = this.decisions.completion(completion);
    if (!fault) return this.toClient.push(bytes, 0);
    const { statement, status, tag } = completion;
    const what = `${describeStatement(statement)} → ${status} (${tag})`;
    switch (fault.kind) {
      case 'lost-ack':
        this.log.record('lost-ack', this.id, what);
        return this.cut();
      case 'cut-mid-transaction':
        this.log.record(
          'cut-mid-transaction',
          this.id,
          `${what}, reply forwarded: ${fault.forwardReply}`,
        );
        return fault.forwardReply ? this.cutAfter(bytes) : this.cut();
      case 'delay':
        this.log.record('delay', this.id, `${what} reply held ${fault.ms}ms`);
        return this.toClient.push(bytes, fault.ms);
    }
  }

  /** Destroys the server side now and lets the client read `bytes` before it is closed. */
  private cutAfter(bytes: Buffer): void {
    this.isCut = true;
    this.toServer.close();
    resetSocket(this.server);
    this.toClient.push(bytes, 0);
    this.toClient.pushEnd();
  }

  private stop(): void {
    this.toServer.close();
    this.toClient.close();
  }
}
