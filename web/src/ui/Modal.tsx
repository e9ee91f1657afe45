import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface ModalProps {
  /** the dialog's accessible name, shown as its heading */
  title: ReactNode;
  /** Escape (or a cancel button inside) calls it; the caller unmounts the modal */
  onClose(): void;
  /** an element of the body says more (its id), e.g. what a confirmation does */
  describedBy?: string;
  children: ReactNode;
}

/**
 * A modal dialog over the page: labelled by its heading, focus moved in on open (to the element
 * marked `data-autofocus`, else the first focusable one), kept inside while it is open (Tab and
 * Shift+Tab wrap), Escape closes it, and focus goes back to where it was when it closes.
 */
export function Modal({ title, onClose, describedBy, children }: ModalProps): ReactNode {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const el = box.current;
    const first = el?.querySelector<HTMLElement>('[data-autofocus]') ?? el?.querySelector<HTMLElement>(FOCUSABLE) ?? el;
    first?.focus();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !box.current) return;
    const items = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) {
      e.preventDefault();
      return;
    }
    const [head, tail] = [items[0]!, items[items.length - 1]!];
    const at = document.activeElement;
    if (e.shiftKey && (at === head || at === box.current)) {
      e.preventDefault();
      tail.focus();
    } else if (!e.shiftKey && at === tail) {
      e.preventDefault();
      head.focus();
    }
  };

  return createPortal(
    <div className="overlay">
      <div ref={box} className="dialog" role="dialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={describedBy} tabIndex={-1} onKeyDown={onKeyDown}>
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>,
    document.body,
  );
}
