import { Button, Modal } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ContactForm } from './ContactForm';
import { useCreateContact } from './queries';

/** "New contact" on the contact list. */
export function NewContactButton() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const create = useCreateContact((contact) => void navigate(`/contacts/${contact.id}`));
  return (
    <>
      <Button onClick={() => setOpen(true)}>{t('contacts.create')}</Button>
      <Modal opened={open} onClose={() => setOpen(false)} title={t('contacts.create')}>
        <ContactForm
          initial={{ name: '', email: '', phone: '' }}
          onSubmit={(values) => create.mutate(values)}
          pending={create.isPending}
          error={create.error}
        />
      </Modal>
    </>
  );
}
