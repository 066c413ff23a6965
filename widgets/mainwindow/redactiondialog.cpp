// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/redactiondialog.h"
#include "widgets/models/filenames.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QVBoxLayout>

namespace cl::gui {

QString redactionPatternsPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/contextlens/redact-patterns.txt");
}

std::shared_ptr<redact::Rules> redactionRules(QString *error)
{
    auto rules = redact::Rules::builtIn();
    const QString file = redactionPatternsPath();
    if (!QFile::exists(file))
        return rules;
    auto withUser = redact::Rules::builtIn();
    std::string why;
    if (!withUser->addPatternsFile(filenames::toBytes(file), why)) {
        if (error)
            *error = QString::fromStdString(why);
        return rules;
    }
    return withUser;
}

RedactionDialog::RedactionDialog(std::shared_ptr<const Transcript> transcript, Purpose purpose, QWidget *parent)
    : QDialog(parent)
    , m_redact(new QCheckBox(tr("&Redact secrets"), this))
    , m_table(new QTableWidget(0, 4, this))
    , m_summary(new QLabel(this))
{
    setWindowTitle(purpose == Purpose::Export ? tr("Export: secrets") : purpose == Purpose::Report ? tr("Report: secrets")
                                                                                                   : tr("Markdown: secrets"));
    m_redact->setChecked(purpose != Purpose::Export);
    m_redact->setToolTip(tr("Replace each secret by a placeholder such as [REDACTED:anthropic-key:1] in what is written; "
                            "the session itself is not changed"));
    m_table->setHorizontalHeaderLabels({tr("Rule"), tr("Message"), tr("Secret (masked)"), tr("Times")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->horizontalHeader()->setSectionResizeMode(2, QHeaderView::Stretch);

    QString rulesError;
    redact::Redactor redactor(redactionRules(&rulesError));
    std::vector<redact::MessageHit> hits;
    if (transcript) {
        const auto copy = redact::redactedCopy(*transcript, redactor);
        hits = redact::hitsByMessage(*copy, redactor);
    }
    m_table->setRowCount(int(hits.size()));
    for (int row = 0; row < int(hits.size()); ++row) {
        const redact::MessageHit &h = hits[std::size_t(row)];
        auto *message = new QTableWidgetItem(h.message >= 0 ? QString::number(h.message + 1) : tr("other lines"));
        message->setData(Qt::UserRole, qlonglong(h.message));
        m_table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(h.secret->rule)));
        m_table->setItem(row, 1, message);
        m_table->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(h.secret->masked)));
        m_table->setItem(row, 3, new QTableWidgetItem(QString::number(h.secret->occurrences)));
    }
    m_table->resizeColumnsToContents();
    QString summary = redactor.secrets().empty()
                          ? tr("No secrets found by the rules.")
                          : tr("%n secret(s) found (%1), in the messages listed:", nullptr, int(redactor.secrets().size()))
                                .arg(QString::fromStdString(redact::countsText(redactor)));
    if (!rulesError.isEmpty())
        summary += QLatin1Char('\n') + tr("Your patterns (%1) were not used: %2").arg(QDir::toNativeSeparators(redactionPatternsPath()), rulesError);
    m_summary->setText(summary);
    m_summary->setWordWrap(true);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons->addButton(tr("&Write"), QDialogButtonBox::AcceptRole)->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_redact);
    layout->addWidget(buttons);
    resize(640, hits.empty() ? 200 : 420);
}

bool RedactionDialog::redact() const
{
    return m_redact->isChecked();
}

QString RedactionDialog::summaryText() const
{
    return m_summary->text();
}

bool confirmRedaction(const std::shared_ptr<const Transcript> &transcript, RedactionDialog::Purpose purpose, QWidget *parent, bool *redact)
{
    RedactionDialog dialog(transcript, purpose, parent);
    *redact = dialog.redact();
    if (dialog.hitsTable()->rowCount() == 0)
        return true; // nothing to decide
    if (dialog.exec() != QDialog::Accepted)
        return false;
    *redact = dialog.redact();
    return true;
}

} // namespace cl::gui
