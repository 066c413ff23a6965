// SPDX-License-Identifier: MIT
#include "widgets/style/theme.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleHints>

namespace cl::gui::theme {

QString name(Choice c)
{
    switch (c) {
    case Choice::Light: return QStringLiteral("light");
    case Choice::Dark: return QStringLiteral("dark");
    case Choice::System: break;
    }
    return QStringLiteral("system");
}

bool fromName(const QString &n, Choice *out)
{
    for (Choice c : {Choice::System, Choice::Light, Choice::Dark})
        if (n.compare(name(c), Qt::CaseInsensitive) == 0) {
            *out = c;
            return true;
        }
    return false;
}

QPalette lightPalette()
{
    QPalette p(QColor(239, 239, 239));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(245, 245, 245));
    p.setColor(QPalette::Text, QColor(30, 30, 30));
    p.setColor(QPalette::WindowText, QColor(30, 30, 30));
    p.setColor(QPalette::ButtonText, QColor(30, 30, 30));
    p.setColor(QPalette::Highlight, QColor(48, 140, 198));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(255, 255, 220));
    p.setColor(QPalette::ToolTipText, Qt::black);
    p.setColor(QPalette::Link, QColor(0, 100, 200));
    p.setColor(QPalette::PlaceholderText, QColor(130, 130, 130));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(140, 140, 140));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(140, 140, 140));
    return p;
}

QPalette darkPalette()
{
    QPalette p(QColor(53, 53, 53));
    p.setColor(QPalette::Window, QColor(45, 45, 48));
    p.setColor(QPalette::WindowText, QColor(220, 220, 220));
    p.setColor(QPalette::Base, QColor(30, 30, 30));
    p.setColor(QPalette::AlternateBase, QColor(38, 38, 40));
    p.setColor(QPalette::Text, QColor(220, 220, 220));
    p.setColor(QPalette::Button, QColor(53, 53, 56));
    p.setColor(QPalette::ButtonText, QColor(220, 220, 220));
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Highlight, QColor(42, 130, 218));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 60));
    p.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    p.setColor(QPalette::Link, QColor(100, 170, 255));
    p.setColor(QPalette::PlaceholderText, QColor(130, 130, 130));
    p.setColor(QPalette::Light, QColor(70, 70, 70));
    p.setColor(QPalette::Midlight, QColor(60, 60, 60));
    p.setColor(QPalette::Mid, QColor(40, 40, 40));
    p.setColor(QPalette::Dark, QColor(25, 25, 25));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(128, 128, 128));
    return p;
}

void apply(Choice c)
{
    switch (c) {
    case Choice::Light: QApplication::setPalette(lightPalette()); break;
    case Choice::Dark: QApplication::setPalette(darkPalette()); break;
    case Choice::System:
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
        // Fusion's standard palette is always light; follow the desktop's colour scheme instead.
        if (QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark) {
            QApplication::setPalette(darkPalette());
            break;
        }
#endif
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    }
}

Choice saved()
{
    Choice c = Choice::System;
    fromName(QSettings().value(QStringLiteral("view/theme")).toString(), &c);
    return c;
}

void save(Choice c)
{
    QSettings().setValue(QStringLiteral("view/theme"), name(c));
}

bool isDark(const QPalette &p)
{
    return p.color(QPalette::Base).lightness() < 128;
}

} // namespace cl::gui::theme
