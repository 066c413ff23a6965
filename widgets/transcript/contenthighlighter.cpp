// SPDX-License-Identifier: MIT
#include "widgets/transcript/contenthighlighter.h"

#include "config-contextlens.h"

#include <QTextDocument>

#if CONTEXTLENS_HAVE_KSYNTAX
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace cl::gui {

namespace {
// User-visible name of a content kind.
QString modeLabel(BuiltinHighlighter::Mode m)
{
    switch (m) {
    case BuiltinHighlighter::Mode::Json: return QStringLiteral("JSON");
    case BuiltinHighlighter::Mode::Diff: return QStringLiteral("diff");
    case BuiltinHighlighter::Mode::Shell: return QStringLiteral("shell output");
    case BuiltinHighlighter::Mode::Plain: break;
    }
    return QStringLiteral("plain text");
}

#if CONTEXTLENS_HAVE_KSYNTAX
// KSyntaxHighlighting definition name of a content kind.
QString definitionName(BuiltinHighlighter::Mode m)
{
    switch (m) {
    case BuiltinHighlighter::Mode::Json: return QStringLiteral("JSON");
    case BuiltinHighlighter::Mode::Diff: return QStringLiteral("Diff");
    case BuiltinHighlighter::Mode::Shell: return QStringLiteral("Bash");
    case BuiltinHighlighter::Mode::Plain: break;
    }
    return QStringLiteral("None");
}

// One repository for the whole application: loading the definitions is not free.
// Created on first use, i.e. after QApplication, and never destroyed: static destruction order
// after QApplication is gone is not worth the risk.
KSyntaxHighlighting::Repository &repository()
{
    static auto *repo = new KSyntaxHighlighting::Repository;
    return *repo;
}
#endif
} // namespace

ContentHighlighter::ContentHighlighter(QTextDocument *document)
    : QObject(document)
{
#if CONTEXTLENS_HAVE_KSYNTAX
    m_highlighter = new KSyntaxHighlighting::SyntaxHighlighter(document);
#else
    m_highlighter = new BuiltinHighlighter(document);
#endif
}

ContentHighlighter::~ContentHighlighter() = default;

bool ContentHighlighter::usesKSyntaxHighlighting()
{
    return CONTEXTLENS_HAVE_KSYNTAX;
}

void ContentHighlighter::setContent(const QString &fileName, Mode mode)
{
#if CONTEXTLENS_HAVE_KSYNTAX
    auto *hl = static_cast<KSyntaxHighlighting::SyntaxHighlighter *>(m_highlighter);
    KSyntaxHighlighting::Definition def;
    if (!fileName.isEmpty())
        def = repository().definitionForFileName(fileName);
    if (!def.isValid())
        def = repository().definitionForName(definitionName(mode));
    hl->setTheme(repository().defaultTheme(m_dark ? KSyntaxHighlighting::Repository::DarkTheme
                                                  : KSyntaxHighlighting::Repository::LightTheme));
    hl->setDefinition(def);
    hl->rehighlight();
    m_description = def.isValid() ? def.name() : modeLabel(Mode::Plain);
#else
    Q_UNUSED(fileName);
    auto *hl = static_cast<BuiltinHighlighter *>(m_highlighter);
    hl->setDark(m_dark);
    hl->setMode(mode);
    m_description = modeLabel(mode);
#endif
}

void ContentHighlighter::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
#if CONTEXTLENS_HAVE_KSYNTAX
    auto *hl = static_cast<KSyntaxHighlighting::SyntaxHighlighter *>(m_highlighter);
    hl->setTheme(repository().defaultTheme(dark ? KSyntaxHighlighting::Repository::DarkTheme
                                                : KSyntaxHighlighting::Repository::LightTheme));
    hl->rehighlight();
#else
    static_cast<BuiltinHighlighter *>(m_highlighter)->setDark(dark);
#endif
}

} // namespace cl::gui
