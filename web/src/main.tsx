import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import { i18nReady } from './i18n';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';

void i18nReady.then(() => createRoot(document.getElementById('root')!).render(<App />));
