import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** smtp-server's connection, as far as cutting one goes. */
interface Connection {
	session: unknown;
	_socket: { destroy(): void };
}

/** A local SMTP server (smtp-server) that keeps every message, parsed (mailparser). */
export class MailCatcher {
	readonly mails: ParsedMail[] = [];
	/** Reject the next n messages with 451 (a transient failure: the sender must retry). */
	failNext = 0;
	/** A message to this recipient has its connection cut in the middle of DATA, every time. */
	dropTo: string | null = null;
	/** How many connections were cut that way. */
	dropped = 0;
	url = '';
	private server: SMTPServer | null = null;

	async start(): Promise<this> {
		this.server = new SMTPServer({
			authOptional: true,
			disabledCommands: ['STARTTLS'],
			logger: false,
			onData: (stream, session, callback) => {
				if (this.dropTo && session.envelope.rcptTo.some((r) => r.address === this.dropTo)) {
					// The first chunk of the message arrives, then the server is gone without an answer.
					stream.once('data', () => {
						this.dropped++;
						const connections = (this.server as unknown as { connections: Set<Connection> }).connections;
						for (const c of connections) if (c.session === session) c._socket.destroy();
					});
					stream.resume();
					return;
				}
				simpleParser(stream)
					.then((mail) => {
						if (this.failNext > 0) {
							this.failNext--;
							const err = Object.assign(new Error('try later'), { responseCode: 451 });
							return callback(err);
						}
						this.mails.push(mail);
						callback();
					})
					.catch(callback);
			}
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		const address = this.server.server.address();
		this.url = `smtp://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
		return this;
	}

	async until(done: (mails: ParsedMail[]) => boolean, ms = 20_000): Promise<ParsedMail[]> {
		const end = Date.now() + ms;
		while (!done(this.mails)) {
			if (Date.now() > end)
				throw new Error(`mail: not there within ${ms} ms; got ${this.mails.map((m) => m.subject).join(', ')}`);
			await new Promise((r) => setTimeout(r, 50));
		}
		return this.mails;
	}

	stop(): Promise<void> {
		return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}
}
