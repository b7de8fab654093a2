import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { ShellFrame } from './ShellFrame';

/**
 * The signed-in frame: navigation, language, user menu; signs out to /login when the session
 * ends. Confirmation dialogs and notifications live here, so the sign-in page does not load them.
 */
export function Shell() {
  return (
    <ModalsProvider>
      <Notifications position="top-right" />
      <ShellFrame />
    </ModalsProvider>
  );
}
