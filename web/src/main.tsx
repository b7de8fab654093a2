import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './i18n';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';

// The sign-in texts are part of the entry; pages behind sign-in load the rest with their code.
createRoot(document.getElementById('root')!).render(<App />);
