import { Group, Modal, NumberInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { EventPlaceFields, EventWhenFields } from './EventWhenFields';
import { placeFieldError } from '../../api/field-errors';
import type { EventRow } from '../../api/types';
import { notify } from '../../components/notify';
import { useFormUnsavedChanges } from '../../components/unsaved-changes';
import { ErrorAlert } from '../../components/states';
import { useUpdateEvent } from './queries';
import { FormActions } from '../../components/FormActions';
import { PaymentFields } from './PaymentFields';
import {
  FIELDS,
  eventPutBody,
  eventValues,
  paymentValidation,
  timeOrderProblem,
  type EventValues,
} from './event-form';

/** Edits an event; the API's refusals appear at the field they name. */
export function EventEditor({ event, onClose }: { event: EventRow; onClose: () => void }) {
  const { t } = useTranslation();
  const draft = event.status === 'draft';
  const form = useForm<EventValues>({
    initialValues: eventValues(event),
    validate: {
      title: (v) =>
        v.trim() ? (v.length > 200 ? t('events.titleTooLong') : null) : t('events.titleRequired'),
      event_date: (v) => (v ? null : t('events.dateRequired')),
      capacity_total: (v) =>
        Number.isInteger(Number(v)) && Number(v) >= 0 && v !== '' ? null : t('events.capacityInvalid'),
      event_time_end: (v, values) => timeOrderProblem(values, t),
      ...(draft ? paymentValidation(t) : {}),
    },
  });
  const save = useUpdateEvent(event.id);
  const callbacks = {
    onSuccess: () => {
      notify(t('events.saved'));
      onClose();
    },
    onError: (error: Error) => placeFieldError(error, FIELDS, form.setFieldError),
  };
  useFormUnsavedChanges(form, (values) => save.mutateAsync(eventPutBody(values, draft), callbacks));
  const placed = save.error !== null && Object.keys(form.errors).length > 0;
  return (
    <Modal opened onClose={onClose} title={t('events.editTitle')} size="lg">
      <form
        onSubmit={form.onSubmit((values) => save.mutate(eventPutBody(values, draft), callbacks))}
        noValidate
      >
        <Stack>
          {save.error && !placed && <ErrorAlert error={save.error} />}
          <EventWhenFields form={form} />
          <EventPlaceFields form={form} />
          <Group grow align="flex-start">
            <NumberInput
              label={t('events.capacity')}
              required
              min={0}
              {...form.getInputProps('capacity_total')}
            />
            <NumberInput
              label={t('events.waitlistMax')}
              description={t('events.waitlistMaxHelp')}
              min={0}
              {...form.getInputProps('waitlist_max')}
            />
          </Group>
          <PaymentFields form={form} locked={draft ? undefined : t('events.paymentFixed')} />
          <FormActions onCancel={onClose} pending={save.isPending} />
        </Stack>
      </form>
    </Modal>
  );
}
