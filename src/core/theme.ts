// How the built-in pages and e-mails look: the `theme` option's shape.

/** How the built-in pages look. Invalid colours and unsafe logo URLs are ignored. */
export interface Theme {
  /** `auto` (default) follows the visitor's system preference. */
  colorScheme?: 'auto' | 'dark' | 'light';
  /** Logo above the card: http(s), relative or `data:image/svg+xml` URL. */
  logo?: string;
  /** Colour of primary buttons and links. */
  brandColor?: string;
  /** Text colour on primary buttons; defaults to one readable on `brandColor`. */
  buttonText?: string;
}
