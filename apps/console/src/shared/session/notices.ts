/** Key of the "You are not authorized to view this page" notification (one at a time; closed on sign-in). */
export const NOT_AUTHORIZED_KEY = 'not-authorized';
