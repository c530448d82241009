/**
 * The keyboard shortcuts the shell really handles (app/ShellLayout.tsx binds them): listed in its Keyboard
 * Shortcuts dialog and in the Overview page's Learning Center.
 */
export const KEYBOARD_SHORTCUTS = [
  { keys: ['/'], description: 'Focus the search box' },
  { keys: ['?'], description: 'Show these keyboard shortcuts' },
  { keys: ['Esc'], description: 'Close a dialog or menu' },
] as const;
