/**
 * The keyboard shortcuts the shell really handles (app/ShellLayout.tsx binds them): listed in its Keyboard
 * Shortcuts dialog and in the Overview page's Learning Center.
 */
export const KEYBOARD_SHORTCUTS = [
  { keys: ['/'], description: 'Focus the search box' },
  { keys: ['?'], description: 'Show these keyboard shortcuts' },
  { keys: ['Esc'], description: 'Close a dialog or menu' },
] as const;

/** The shortcuts as a table (the shell's dialog and the Learning Center show the same one). */
export function KeyboardShortcutsTable() {
  return (
    <table className="shell-shortcuts">
      <tbody>
        {KEYBOARD_SHORTCUTS.map((s) => (
          <tr key={s.description}>
            <th scope="row">
              {s.keys.map((k) => (
                <kbd key={k}>{k}</kbd>
              ))}
            </th>
            <td>{s.description}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
