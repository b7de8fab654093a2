import { Navigate } from 'react-router';
import { useMe } from '../../app/session';
import { visibleTabs } from './SettingsPage';

/** /settings opens the first tab the user may see. */
export function SettingsIndex() {
  const me = useMe();
  return <Navigate to={visibleTabs(me.permissions)[0]!.value} replace />;
}
