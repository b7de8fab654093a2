import { SimpleGrid, TextInput, Textarea } from '@mantine/core';
import type { GetInputPropsReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';

type WhenField = 'title' | 'event_date' | 'event_time_start' | 'event_time_end';

/** An event's title, date and times: the first fields of creating and of editing an event. */
export function EventWhenFields({
  form,
}: {
  form: { getInputProps(path: WhenField): GetInputPropsReturnType };
}) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput label={t('events.eventTitle')} required data-autofocus {...form.getInputProps('title')} />
      {/* Date and times side by side from 576 px, one below the other on a phone. */}
      <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
        <TextInput type="date" label={t('events.date')} required {...form.getInputProps('event_date')} />
        <TextInput type="time" label={t('events.timeStart')} {...form.getInputProps('event_time_start')} />
        <TextInput type="time" label={t('events.timeEnd')} {...form.getInputProps('event_time_end')} />
      </SimpleGrid>
    </>
  );
}

/** Where the event is and what it is about. */
export function EventPlaceFields({
  form,
}: {
  form: { getInputProps(path: 'location' | 'description'): GetInputPropsReturnType };
}) {
  const { t } = useTranslation();
  return (
    <>
      <TextInput label={t('events.location')} {...form.getInputProps('location')} />
      <Textarea label={t('events.description')} autosize minRows={2} {...form.getInputProps('description')} />
    </>
  );
}
