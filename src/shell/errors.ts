/** Typed failures with reason codes; the runner is the one place that reports them. */
export type FailureCode = 'bad-payload' | 'lock-timeout' | 'lock-lost' | 'internal';

export class HookFailure extends Error {
  constructor(
    readonly code: FailureCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}
