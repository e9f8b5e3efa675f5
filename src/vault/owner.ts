/**
 * Secrets are bound to the wallet that entered them: after the agent changes hands,
 * the earlier owner's secrets are never used for the new owner, who must enter their own.
 */

/**
 * What a record's credential is worth to the agent's current owner, as the API shows it:
 * - `none`: the record needs no credential;
 * - `set`: a credential entered by the current owner is stored;
 * - `reenter_required`: the record needs a credential and none of the current owner's is stored
 *   (an earlier owner entered it, it was stored before owners were recorded, or it was removed).
 */
export type CredentialState = 'set' | 'reenter_required' | 'none';

export const CREDENTIAL_STATES = ['set', 'reenter_required', 'none'] as const satisfies readonly CredentialState[];

/** How vault entries record a wallet: the lower-case 0x address. */
export function walletKey(address: string): string {
  return address.toLowerCase();
}

/**
 * The state of a record's credential for `currentOwner`, from whether the record needs one and
 * the owner wallet of its vault entry (`null`: no entry, or an entry without a recorded owner).
 */
export function credentialState(needed: boolean, entryWallet: string | null | undefined, currentOwner: string): CredentialState {
  if (!needed) return 'none';
  return entryWallet != null && entryWallet === walletKey(currentOwner) ? 'set' : 'reenter_required';
}
