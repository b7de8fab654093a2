import { createContext, useContext, type ReactNode } from 'react';
import type { Me } from '../api/types';

const MeContext = createContext<Me | null>(null);

export function MeProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <MeContext.Provider value={me}>{children}</MeContext.Provider>;
}

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside the signed-in shell');
  return me;
}

/** Whether the signed-in user holds a permission (the API stays the authority). */
export function useCan(permission: string): boolean {
  return useMe().permissions.includes(permission);
}
