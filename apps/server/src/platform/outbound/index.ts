export { type AddressPolicy, createAddressPolicy, parseAllowlist } from './address-policy.ts';
export {
  createOutboundClient,
  type OutboundClient,
  type OutboundOptions,
  type OutboundRequestInit,
  type OutboundResponse,
} from './outbound-client.ts';
export { OutboundBlockedError, OutboundRedirectError } from './outbound-errors.ts';
