//! What the server tells the client it can do (the `initialize` answer).

use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, DiagnosticOptions,
    DiagnosticServerCapabilities, ExecuteCommandOptions, HoverProviderCapability, Notebook,
    NotebookCellSelector, NotebookDocumentSyncOptions, NotebookSelector, OneOf,
    PositionEncodingKind, SaveOptions, ServerCapabilities, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};

use super::{APPLY_FIX_COMMAND, FIX_ALL_COMMAND, FIX_ALL_KIND};

pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                will_save: None,
                will_save_wait_until: None,
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::from(FIX_ALL_KIND.to_string()),
            ]),
            work_done_progress_options: Default::default(),
            resolve_provider: Some(false),
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![APPLY_FIX_COMMAND.to_string(), FIX_ALL_COMMAND.to_string()],
            work_done_progress_options: Default::default(),
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        // Jupyter notebooks' Python cells (LSP 3.17), as VS Code syncs `.ipynb` files.
        notebook_document_sync: Some(OneOf::Left(NotebookDocumentSyncOptions {
            notebook_selector: vec![NotebookSelector::ByNotebook {
                notebook: Notebook::String("jupyter-notebook".to_string()),
                cells: Some(vec![NotebookCellSelector {
                    language: "python".to_string(),
                }]),
            }],
            save: Some(true),
        })),
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("oomlint".to_string()),
            inter_file_dependencies: false,
            workspace_diagnostics: false,
            work_done_progress_options: Default::default(),
        })),
        ..ServerCapabilities::default()
    }
}
