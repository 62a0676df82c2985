/**
 * Thrown inside a reconcile run that has just parked its identity (a conflict recorded for an
 * admin: its platform account is managed for another input's identity, or two accounts fit it).
 * The run stops there and ends as `parked`: no retry, nothing written (reconcile-identity.ts).
 */
export class Parked extends Error {
  constructor(readonly conflictId: string | undefined) {
    super(`parked by conflict ${conflictId ?? '(identity no longer desired)'}`);
    this.name = 'Parked';
  }
}
