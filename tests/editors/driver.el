;;; driver.el --- drives Emacs in batch mode after the guide's eglot setup  -*- lexical-binding: t -*-
;; Loaded after the guide's Emacs setup, verbatim (docs/src/editors.md; tests/it/editors.rs): opens
;; the doc named by CITEGATE_EDITOR_DOC, waits for eglot's diagnostics, applies the one quick fix
;; (as `C-u M-x eglot-code-actions RET quickfix` does), saves the doc and reports as JSON to the
;; file named by CITEGATE_EDITOR_OUT.
(require 'json)
(require 'flymake)

(defvar citegate-out (or (getenv "CITEGATE_EDITOR_OUT") (error "CITEGATE_EDITOR_OUT is not set")))

(defun citegate-finish (result)
  (let ((coding-system-for-write 'utf-8))
    (with-temp-file citegate-out (insert (json-encode result))))
  (kill-emacs 0))

(defun citegate-lsp-diagnostics ()
  "The LSP diagnostics eglot gave Flymake in this buffer, in buffer order."
  (let (found)
    (dolist (d (flymake-diagnostics))
      (let ((lsp (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))))
        (when lsp (push (cons (flymake-diagnostic-beg d) lsp) found))))
    (mapcar #'cdr (sort found (lambda (a b) (< (car a) (car b)))))))

(condition-case err
    (progn
      (find-file (getenv "CITEGATE_EDITOR_DOC"))
      ;; `eglot-ensure' connects from `post-command-hook', after the command that opened the file;
      ;; a batch Emacs has no command loop, so run that hook as the loop would.
      (run-hooks 'post-command-hook)
      (let ((deadline (+ (float-time) 30)))
        (while (and (< (float-time) deadline) (null (citegate-lsp-diagnostics)))
          (accept-process-output nil 0.05)
          (when (bound-and-true-p flymake-mode) (flymake-start nil t))))
      (let ((diagnostics
             (mapcar (lambda (lsp)
                       (let ((start (plist-get (plist-get lsp :range) :start)))
                         `((line . ,(1+ (plist-get start :line)))
                           (column . ,(1+ (plist-get start :character)))
                           (code . ,(plist-get lsp :code))
                           (severity . ,(plist-get lsp :severity))
                           (message . ,(plist-get lsp :message)))))
                     (citegate-lsp-diagnostics))))
        (unless diagnostics
          (citegate-finish `((error . ,(format "no diagnostics within 30 s (mode %s, eglot %s)"
                                               major-mode (and (eglot-current-server) t))))))
        (eglot-code-actions (point-min) (point-max) "quickfix" t)
        (save-buffer)
        (citegate-finish `((diagnostics . ,(vconcat diagnostics)) (applied . t))))))
  (error (citegate-finish `((error . ,(error-message-string err))))))
