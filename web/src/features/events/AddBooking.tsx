import { Button, Group, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorAlert } from '../../components/states';
import { useAddBooking } from './queries';

/** Books a person by name, e-mail or phone (an address or number finds the existing contact). */
export function AddBooking({ eventId }: { eventId: string }) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [phone, setPhone] = useState('');
  const book = useAddBooking(eventId);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        const person = { name: name.trim(), email: email.trim(), phone: phone.trim() };
        if (!person.name && !person.email && !person.phone) return;
        book.mutate(person, {
          onSuccess: () => {
            setName('');
            setEmail('');
            setPhone('');
          },
        });
      }}
    >
      <Group align="flex-end">
        <TextInput
          label={t('events.bookName')}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <TextInput
          label={t('contacts.email')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
        />
        <TextInput
          label={t('contacts.phone')}
          value={phone}
          onChange={(e) => setPhone(e.currentTarget.value)}
        />
        <Button type="submit" loading={book.isPending}>
          {t('events.book')}
        </Button>
      </Group>
      {book.error && <ErrorAlert error={book.error} />}
    </form>
  );
}
