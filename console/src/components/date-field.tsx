/**
 * A date typed as the console writes dates (2026-11-25: formatDay), with a button that opens the browser's own
 * calendar. A plain date field would show the date in the browser's locale (25/11/2026, 11/25/2026), unlike the
 * list it filters.
 */
import { useRef } from 'preact/hooks';
import { parseDay, t } from '../i18n.js';

interface DateFieldProps {
  id: string;
  label: string;
  value: string;
  error?: string | undefined;
  onChange: (value: string) => void;
}

export function DateField({ id, label, value, error, onChange }: DateFieldProps) {
  const picker = useRef<HTMLInputElement>(null);
  const open = () => {
    const input = picker.current;
    if (!input) return;
    input.value = parseDay(value) ? value : '';
    try {
      input.showPicker();
    } catch {
      input.focus(); // a browser without showPicker: the (hidden) date field takes the keyboard
    }
  };
  return (
    <div class="field date-field">
      <label for={id}>{label}</label>
      <div class="date-input">
        <input
          id={id}
          value={value}
          placeholder={t('YYYY-MM-DD')}
          inputMode="numeric"
          size={11}
          spellcheck={false}
          aria-invalid={error !== undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
        <button type="button" class="icon-button" onClick={open} aria-label={t('Choose a date: {field}', { field: label })}>
          <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
            <path d="M2 3h12v11H2zM2 6h12M5 1v3M11 1v3" fill="none" stroke="currentColor" stroke-width="1.4" />
          </svg>
        </button>
        {/* The browser's calendar; its value is 2026-11-25 whatever the locale it shows the date in. */}
        <input
          ref={picker}
          type="date"
          class="date-picker"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(e) => e.currentTarget.value && onChange(e.currentTarget.value)}
        />
      </div>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
