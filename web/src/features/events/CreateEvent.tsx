import '@mantine/dates/styles.css';
import { Modal, NumberInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { EventPlaceFields, EventWhenFields } from './EventWhenFields';
import { useNavigate } from 'react-router';
import { useCreateEvent } from './queries';
import type { EventBody } from '../../api/types';
import { ErrorAlert } from '../../components/states';
import { paymentBody, paymentValidation, timeOrderProblem } from './event-form';
import { PaymentFields } from './PaymentFields';
import { useUnsavedChanges } from '../../components/unsaved-changes';
import { FormActions } from '../../components/FormActions';
import { isoDay } from '../../format';

export function CreateEvent({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const form = useForm({
    initialValues: {
      title: '',
      event_date: '',
      event_time_start: '',
      event_time_end: '',
      capacity_total: 10 as number | string,
      location: '',
      description: '',
      price: '' as number | string,
      currency: 'EUR',
      payment_model: 'free',
      deposit_amount: '' as number | string,
      external_payment_url: '',
    },
    validate: {
      title: (v) =>
        v.trim() ? (v.length > 200 ? t('events.titleTooLong') : null) : t('events.titleRequired'),
      event_date: (v) => (v ? null : t('events.dateRequired')),
      capacity_total: (v) =>
        Number.isInteger(Number(v)) && Number(v) >= 0 ? null : t('events.capacityInvalid'),
      event_time_end: (_v, values) => timeOrderProblem(values, t),
      ...paymentValidation(t),
    },
  });
  const create = useCreateEvent();
  const submit = (values: typeof form.values) => {
    const body: EventBody = {
      title: values.title.trim(),
      event_date: isoDay(values.event_date)!,
      event_time_start: values.event_time_start || null,
      event_time_end: values.event_time_end || null,
      capacity_total: Number(values.capacity_total),
      location: values.location.trim() || null,
      description: values.description.trim() || null,
      ...paymentBody(values),
    };
    create.mutate(body, {
      onSuccess: (event) => {
        form.reset();
        onClose();
        void navigate(`/events/${event.id}`);
      },
    });
  };
  // Creating opens the new event, so leaving only offers to discard.
  useUnsavedChanges({ dirty: () => opened && form.isDirty(), discard: () => form.reset() });
  return (
    <Modal opened={opened} onClose={onClose} title={t('events.create')}>
      <form onSubmit={form.onSubmit(submit)} noValidate>
        <Stack>
          {create.error && <ErrorAlert error={create.error} />}
          <EventWhenFields form={form} />
          <NumberInput
            label={t('events.capacity')}
            required
            min={0}
            {...form.getInputProps('capacity_total')}
          />
          <EventPlaceFields form={form} />
          <PaymentFields form={form} />
          <FormActions onCancel={onClose} pending={create.isPending} submit={t('events.createSubmit')} />
        </Stack>
      </form>
    </Modal>
  );
}
