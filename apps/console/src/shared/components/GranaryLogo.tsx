export interface GranaryLogoProps {
  size?: number;
  /** The mark's background (the default licence logos differ by colour). */
  colour?: string;
}

/** The product mark: an ear of grain on the brand colour. Decorative: the product name is always beside it. */
export function GranaryLogo({ size = 32, colour = '#0f766e' }: GranaryLogoProps) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill={colour} />
      <g fill="#fff">
        <ellipse cx="16" cy="8" rx="2.6" ry="4" />
        <ellipse cx="11.2" cy="13" rx="2.4" ry="3.8" transform="rotate(-35 11.2 13)" />
        <ellipse cx="20.8" cy="13" rx="2.4" ry="3.8" transform="rotate(35 20.8 13)" />
        <ellipse cx="11.2" cy="19" rx="2.4" ry="3.8" transform="rotate(-35 11.2 19)" />
        <ellipse cx="20.8" cy="19" rx="2.4" ry="3.8" transform="rotate(35 20.8 19)" />
        <rect x="15" y="12" width="2" height="16" rx="1" />
      </g>
    </svg>
  );
}
