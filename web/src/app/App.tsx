import { MantineProvider, createTheme, type CSSVariablesResolver } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RouterProvider } from 'react-router';
import { router } from './router';

const themeFor = (closeLabel: string, passwordToggleLabel: string) =>
  createTheme({
    primaryColor: 'indigo',
    // Filled components use shade 9: white text on it stays above the WCAG AA contrast ratio.
    primaryShade: 9,
    components: {
      // Light badges (dark text, see LIGHT_TEXT) read well in every colour. A badge keeps its
      // whole text: in a narrow table column it would otherwise shrink to an ellipsis ("BE…").
      // Plain objects, not Badge.extend / Modal.extend: importing the components here would put
      // them into the sign-in page's JavaScript.
      Badge: {
        defaultProps: { variant: 'light' },
        styles: { root: { minWidth: 'max-content', flexShrink: 0 } },
      },
      // A dialog's close button is named for screen readers, in the user's language.
      Modal: { defaultProps: { closeButtonProps: { 'aria-label': closeLabel } } },
      PasswordInput: {
        defaultProps: { visibilityToggleButtonProps: { 'aria-label': passwordToggleLabel } },
      },
    },
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  });

// Mantine's dimmed grey and the text of its light variants (badges, active links, alerts) are
// below 4.5:1 contrast; these darker texts pass WCAG AA.
const LIGHT_TEXT: Record<string, string> = {
  gray: '#343a40',
  red: '#a51d1d',
  orange: '#a33b06',
  yellow: '#6b4f00',
  green: '#1e6b30',
  teal: '#0b6b55',
  blue: '#14589c',
  indigo: '#2f3a9e',
};
const cssVariables: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': '#5c636a',
    // Field errors (text and input border) in a red that passes 4.5:1 on white.
    '--mantine-color-error': '#c92a2a',
    '--mantine-primary-color-light-color': LIGHT_TEXT.indigo!,
    ...Object.fromEntries(
      Object.entries(LIGHT_TEXT).map(([colour, text]) => [`--mantine-color-${colour}-light-color`, text]),
    ),
  },
  dark: {},
});

export function App() {
  const { t, i18n } = useTranslation();
  const theme = useMemo(() => themeFor(t('common.close'), t('common.togglePassword')), [t, i18n.language]);
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariables}>
      <RouterProvider router={router} />
    </MantineProvider>
  );
}
