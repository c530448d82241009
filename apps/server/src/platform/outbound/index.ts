export { type AddressPolicy, createAddressPolicy, parseAllowlist } from './address-policy.ts';
export {
  createOutboundClient,
  type OutboundClient,
  type OutboundOptions,
  type OutboundRequestInit,
  type OutboundResponse,
  type ProxyResolver,
  type ProxySnapshot,
  type ProxyTarget,
} from './outbound-client.ts';
export { OutboundBlockedError, OutboundProxyError, OutboundRedirectError } from './outbound-errors.ts';
