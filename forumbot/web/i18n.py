"""French page text with an English switch.

Templates write their French text through ``_("...")``; :data:`ENGLISH` maps it to English.
The language comes from ``?lang=fr|en`` (remembered in the ``lang`` cookie) or that cookie;
French is the default. A missing English entry prints the French text (never an error).
"""

from __future__ import annotations

from collections.abc import Callable

from forumbot.publish.render import ELIDING_INITIALS

LANGUAGES = ("fr", "en")
DEFAULT_LANGUAGE = "fr"

ENGLISH: dict[str, str] = {
    # balance heatmaps and stalemate tasks (issue 17)
    "Équilibre": "Balance",
    "Équilibre des règles": "Rules balance",
    "Duels simulés entre duellistes scriptés (actions légales au hasard, ou les dégâts "
    "attendus les plus forts) : qui gagne avec les règles livrées.": (
        "Duels simulated between scripted duellists (random legal actions, or the best "
        "expected damage): who wins with the shipped rules."
    ),
    "Règles « %s »": "Ruleset “%s”",
    "%s duels par paire, graine %s ; rouge : la ligne gagne, bleu : elle perd.": (
        "%s duels per pair, seed %s; red: the row side wins, blue: it loses."
    ),
    "Durée moyenne : %s tours": "Mean length: %s turns",
    "Nuls : %s %%": "Draws: %s %%",
    "Clos par l'arbitre : %s %%": "Closed by the referee: %s %%",
    "année contre année": "year against year",
    "magie contre magie": "magic type against magic type",
    "%s : victoires de la ligne (%s)": "%s: win rate of the row side (%s)",
    "%s duels, %s tours en moyenne, nuls %s %%, clos par l'arbitre %s %%": (
        "%s duels, mean %s turns, draws %s %%, closed by the referee %s %%"
    ),
    "contre": "vs",
    "Durée médiane : %s tours": "Median length: %s turns",
    "Chaque case : la part des duels gagnés par la ligne ; au survol, l'intervalle de confiance "
    "à 95 % (Wilson), le nombre de duels, la part des nuls et des duels clos au plafond de "
    "tours. Une case grise (—) : la plupart de ses duels n'ont pas abouti.": (
        "Each square: the share of duels the row side won; on hover, the 95 % (Wilson) "
        "confidence interval, the number of duels, the share of draws and of duels closed at "
        "the turn cap. A grey square (—): most of its duels did not end."
    ),
    "La diagonale (même année, même magie) oppose deux camps semblables : la ligne est le "
    "duelliste nommé en premier, la case vaut donc environ 50 % moins la moitié des nuls et "
    "des duels clos, et les cases (ligne, colonne) et (colonne, ligne) font 100 % moins leurs "
    "nuls et duels clos.": (
        "The diagonal (same year, same magic type) sets alike sides against each other: the "
        "row side is the duellist listed first, so the square reads about 50 % less half the "
        "draws and closed duels, and squares (row, column) and (column, row) add up to 100 % "
        "less their draws and closed duels."
    ),
    "%s contre %s : %s de victoires (intervalle à 95 %% : %s à %s), %s sur %s duels ; nuls "
    "%s, clos au plafond %s": (
        "%s vs %s: %s won (95 %% interval: %s to %s), %s of %s duels; draws %s, closed at "
        "the cap %s"
    ),
    "Ce tableau ne veut pas dire grand-chose : %s des duels ont été clos au plafond de tours, "
    "sans vainqueur (les duels de ce grimoire s'enlisent).": (
        "This table means little: %s of its duels were closed at the turn cap, with no winner "
        "(this spellbook's duels stall)."
    ),
    "Ce tableau ne veut rien dire : aucun duel n'a eu de vainqueur.": (
        "This table means nothing: no duel had a winner."
    ),
    "Ce tableau ne veut rien dire : aucun duel n'a été joué.": (
        "This table means nothing: no duel was played."
    ),
    "Aucun PV perdu : clore le duel ?": "No PV lost: close the duel?",
    # notices and claims (issue 18)
    "Mes notifications": "My notifications",
    "Je m'en occupe": "I'll handle it",
    "Libérer": "Release",
    "Pris par %s le %s (au plus tard le %s)": "Taken by %s on %s (at most until %s)",
    "Pris en charge : attend la décision de %s": "Taken: waits for %s's decision",
    "Déjà pris par %s.": "Already taken by %s.",
    "Ce brouillon ne peut plus être pris.": "This draft can no longer be taken.",
    "Déjà retenu assez longtemps : il ne peut plus être pris.": (
        "Held long enough already: it can no longer be taken."
    ),
    "Pris : il attend votre décision.": "Taken: it waits for your decision.",
    "Seul %s ou un admin peut le libérer.": "Only %s or an admin can release it.",
    "Ce brouillon n'est pas pris.": "This draft is not taken.",
    "Libéré.": "Released.",
    "Enregistrer": "Save",
    "Réglage refusé : %s": "Setting refused: %s",
    # the forum account of /me/notify (issue 24 F11, forumbot.web.forum_account)
    "Le compte du forum ne peut contenir ni HTML, ni BBCode, ni caractère invisible "
    "ou de contrôle (bidi) : écrivez le nom tel que le forum l'affiche.": (
        "The board account may hold no HTML, no BBCode, no invisible or (bidi) control "
        "character: write the name as the board shows it."
    ),
    "Le compte du forum fait de 1 à 100 caractères.": "The board account is 1 to 100 characters.",
    "Votre compte du forum est déjà relié à « %s » : seul un admin peut le changer.": (
        "Your board account is already linked to “%s”: only an admin can change it."
    ),
    "Le forum ne répond pas : impossible de vérifier « %s ». Réessayez plus tard.": (
        "The board does not answer: “%s” cannot be checked. Try again later."
    ),
    "« %s » n'est pas un membre du forum : écrivez le nom exact de votre compte.": (
        "“%s” is not a member of the board: write your account's exact name."
    ),
    "Le forum écrit ce nom avec des caractères que la page refuse (HTML, BBCode, "
    "invisibles) : demandez à un admin.": (
        "The board writes this name with characters the page refuses (HTML, BBCode, "
        "invisible): ask an admin."
    ),
    "« %s » est déjà (ou ressemble au) compte du forum d'un autre utilisateur de la "
    "page : demandez à un admin.": (
        "“%s” is (or looks like) the board account of another user of the page: ask an admin."
    ),
    "Le nom exact de votre compte sur le forum, vérifié auprès du forum ; une fois relié, "
    "seul un admin le change.": (
        "Your account's exact name on the board, checked with the board; once linked, only "
        "an admin changes it."
    ),
    "Canaux": "Channels",
    "Hibou (message privé sur le forum)": "Owl (private message on the board)",
    "Apprise (Discord, e-mail…)": "Apprise (Discord, e-mail…)",
    "aucune adresse configurée pour vous": "no address configured for you",
    "Compte du forum qui reçoit les hiboux": "Board account that receives the owls",
    "Heures calmes (fuseau du forum, %s), par ex. 22:00-07:30 ; vide : aucune": (
        "Quiet hours (board timezone, %s), e.g. 22:00-07:30; empty: none"
    ),
    "Pendant les heures calmes, seuls les hiboux partent ; le reste attend leur fin.": (
        "During quiet hours only owls go out; the rest waits for their end."
    ),
    "Le bot vous prévient quand un brouillon, une infraction ou une tâche vous attend.": (
        "The bot tells you when a draft, a violation or a task waits for you."
    ),
    "Hibou : un message privé sur le forum ; ce qui arrive moins de %s min après le "
    "précédent attend le suivant, toujours avant qu'un brouillon ne parte tout seul.": (
        "Owl: a private message on the board; what comes less than %s min after the last "
        "one waits for the next, always before a draft publishes by itself."
    ),
    "Apprise : Discord, e-mail, Matrix, ntfy, Telegram, selon la configuration.": (
        "Apprise: Discord, e-mail, Matrix, ntfy, Telegram, as configured."
    ),
    # layout
    "Relecture forumbot": "forumbot review",
    "Brouillons": "Drafts",
    "Duels": "Duels",
    "Infractions": "Violations",
    "Connexion": "Log in",
    "Déconnexion": "Log out",
    "Connecté : %s (%s)": "Logged in: %s (%s)",
    "arbitre": "referee",
    "admin": "admin",
    "Identifiant": "Username",
    "Mot de passe": "Password",
    "Se connecter": "Log in",
    "Identifiant ou mot de passe incorrect.": "Wrong username or password.",
    "Trop de tentatives : réessayez dans %s min.": "Too many attempts: try again in %s min.",
    "Connectez-vous pour continuer.": "Log in to continue.",
    # queue
    "File des brouillons": "Draft queue",
    "Aucun brouillon en attente.": "No pending draft.",
    "Aucun duel ne vous est encore attribué : un administrateur doit vous désigner comme "
    "arbitre d'un duel (page du duel, « Arbitres »).": (
        "No duel is assigned to you yet: an admin must make you a referee of a duel (the "
        'duel\'s page, "Referees").'
    ),
    "Déclaration n°%s": "Declaration #%s",
    "tour %s": "turn %s",
    "ouverture": "opening",
    "Statut": "Status",
    "Version": "Version",
    "Publication automatique dans %s": "Auto-publish in %s",
    "Publication automatique dès maintenant": "Auto-publish due now",
    "En attente de la décision d'un arbitre": "Held: waits for a referee",
    "Approuvé : publié au prochain passage": "Approved: published at the next pass",
    "Approuvé : il partira au prochain passage du bot.": (
        "Approved: it goes out at the bot's next pass."
    ),
    "Publication en cours": "Publishing",
    "Publié (message %s)": "Published (post %s)",
    "Mode manuel : publié seulement sur approbation": "Manual mode: published only on approval",
    "Note": "Note",
    "Texte de la déclaration": "Declaration text",
    "texte modifié à la main : les nombres ne le réécrivent plus": (
        "text edited by hand: numbers no longer rewrite it"
    ),
    "Enregistrer le texte": "Save text",
    "Messages auxquels elle répond": "Posts it answers",
    "Message n°%s": "Post #%s",
    "par %s": "by %s",
    "%s lignes": "%s lines",
    "message non enregistré": "post not stored",
    "Messages supplémentaires laissés à l'arbitre : %s": "Extra posts left to the referee: %s",
    "Dés": "Dice",
    "Nombres calculés": "Computed numbers",
    "Modifier": "Change",
    "oui": "yes",
    "non": "no",
    "Points de %s": "%s's points",
    "Attaque de %s touche": "%s's attack lands",
    "Dégâts de %s": "%s's damage",
    "Disqualification de %s": "%s disqualified",
    "Dé d'attaque de %s": "%s's attack die",
    "Dé de défense de %s": "%s's defense die",
    "Dé de %s": "%s's die",
    "Pari de %s gagné": "%s's bet won",
    "%s esquive": "%s dodges",
    "PV de %s": "%s's PV",
    "Pourquoi ces nombres (règles)": "Why these numbers (rules)",
    "Quantité": "Quantity",
    "Valeur": "Value",
    "Règle": "Rule",
    "Source": "Source",
    "Calcul": "Computation",
    "Attaques": "Attacks",
    "Aucune infraction.": "No violation.",
    "Aperçu, tel que le forum l'affichera": "Preview, as the board will show it",
    "pénalité de %s %s": "penalty of %s %s",
    "sans pénalité de points": "no points penalty",
    "Lever l'infraction": "Waive the violation",
    "Rétablir l'infraction": "Restore the violation",
    "Rétablir": "Restore",
    "Mettre en attente": "Hold",
    # drop a draft (issue 22): a dropped turn is drafted again unless the referee says not
    "Abandonner": "Drop",
    "Rédiger de nouveau le tour au prochain passage (sinon le duel attend l'arbitre)": (
        "Draft the turn again at the next pass (otherwise the duel waits for a referee)"
    ),
    "Abandonné : le tour sera rédigé de nouveau au prochain passage du bot.": (
        "Dropped: the turn will be drafted again at the bot's next pass."
    ),
    "Abandonné : le duel attend l'arbitre (tâche ouverte).": (
        "Dropped: the duel waits for a referee (task opened)."
    ),
    "Abandonné.": "Dropped.",
    "Abandon refusé : %s": "Drop refused: %s",
    "à rédiger de nouveau": "to be drafted again",
    "abandonné": "dropped",
    "Remettre en brouillon": "Back to draft",
    "Approuver": "Approve",
    "Publier maintenant": "Publish now",
    "Voir le duel": "See the duel",
    "Ouvrir": "Open",
    "Ce brouillon a changé entre-temps : rechargez la page avant de le modifier.": (
        "This draft changed meanwhile: reload the page before changing it."
    ),
    "Ce brouillon ne peut plus changer (%s).": "This draft can no longer change (%s).",
    "Modification refusée : %s": "Change refused: %s",
    "Enregistré.": "Saved.",
    "Le texte avait été modifié à la main : il a été recalculé à partir du modèle pour "
    "donner les nouveaux nombres (le texte modifié reste dans le journal d'audit).": (
        "The text had been edited by hand: it was rendered again from the template to give "
        "the new numbers (the hand-edited text stays in the audit log)."
    ),
    "Publié (message %s).": "Published (post %s).",
    "Approuvé ; la publication a échoué : %s": "Approved; publishing failed: %s",
    # statuses
    "brouillon": "draft",
    "approuvé": "approved",
    "mis en attente": "held",
    "publication en cours": "publishing",
    "publié": "published",
    "proposée": "proposed",
    "appliquée": "applied",
    "levée": "waived",
    "confirmée": "confirmed",
    "rejetée": "dismissed",
    "en cours": "running",
    "ouvert": "open",
    "terminé": "finished",
    "ignoré": "ignored",
    # duels
    "Duel n°%s": "Duel #%s",
    "Sujet %s": "Topic %s",
    "Duellistes": "Duellists",
    "Arbitres": "Referees",
    "Aucun arbitre désigné.": "No referee assigned.",
    "Désigner": "Assign",
    "Retirer": "Remove",
    "Aucun duel visible.": "No visible duel.",
    "Historique des tours": "Turn history",
    "Aucun tour publié.": "No published turn.",
    "Tour": "Turn",
    "Évolution des points": "Points over time",
    "Audit des dés": "Dice audit",
    "Empreinte (SHA-256 de la graine)": "Commitment (SHA-256 of the seed)",
    "Graine révélée": "Revealed seed",
    "graine révélée à la fin du duel": "seed revealed at the end of the duel",
    "Message": "Post",
    "Nom": "Name",
    "Valeurs": "Values",
    "Dérivation": "Derivation",
    "Vérifié": "Verified",
    "Modifications (journal d'audit)": "Overrides (audit log)",
    "Aucune modification.": "No change.",
    "Quand": "When",
    "Qui": "Who",
    "Action": "Action",
    "Cible": "Target",
    "Avant": "Before",
    "Après": "After",
    "Quoi": "What",
    "Avant → après": "Before → after",
    "Brouillons en attente": "Pending drafts",
    "Vainqueur : %s": "Winner: %s",
    "Égalité": "Draw",
    "attaque %s contre défense %s": "attack %s vs defense %s",
    "touche": "lands",
    "manque": "misses",
    "sans attaque (%s)": "no attack (%s)",
    # violations
    "Duel": "Duel",
    "Duelliste": "Duellist",
    "tous": "all",
    "Filtrer": "Filter",
    "Exporter en CSV": "Export as CSV",
    "Preuve": "Evidence",
    "Pénalité": "Penalty",
    "Décision": "Decision",
    "Motif": "Reason",
    "Confirmer": "Confirm",
    "Rejeter": "Dismiss",
    "décidée par %s : %s": "decided by %s: %s",
    "Aucune infraction pour ces filtres.": "No violation for these filters.",
    "Décision enregistrée.": "Decision recorded.",
    "Décision refusée : %s": "Decision refused: %s",
    # referee tasks (2v2)
    "Tâches": "Tasks",
    "Tâches de l'arbitre": "Referee tasks",
    "Hiboux des duellistes demandant des détails sur leur zone, tentatives sur un mécanisme à "
    "juger (duels à deux contre deux).": (
        "Duellists' owls asking for details about their zone, mechanism attempts to judge "
        "(two-against-two duels)."
    ),
    "Hibou : demande de détails": "Owl: asks for details",
    "Mécanisme à juger": "Mechanism to judge",
    "Déclaration en attente d'un modérateur": "Declaration awaiting a moderator",
    "Déclaration refusée par le forum": "Declaration refused by the board",
    "Une autre version est sur le forum": "Another version is on the board",
    "Hibou en attente d'un modérateur": "Owl awaiting a moderator",
    "Hibou refusé par le forum": "Owl refused by the board",
    "en attente d'un modérateur": "awaiting a moderator",
    "Notification impossible": "Notice could not be written",
    "Tour abandonné : le duel attend": "Turn dropped: the duel waits",
    "Message modifié après la déclaration": "Post edited after the declaration",
    "Erratum non appliqué": "Erratum not applied",
    "zone : %s": "zone: %s",
    "reçue le %s": "received %s",
    "Objet": "Subject",
    "Note (facultative)": "Note (optional)",
    "Résolu": "Solved",
    "Non résolu": "Not solved",
    "Fait": "Done",
    "fait": "done",
    "résolu": "solved",
    "non résolu": "not solved",
    "en attente": "open",
    "Aucune tâche en attente.": "No open task.",
    "Tâches traitées récemment": "Recently closed tasks",
    "Tâche": "Task",
    "Par": "By",
    "Le": "On",
    "Tâche n°%s : %s.": "Task #%s: %s.",
    "Cette tâche est déjà traitée.": "This task is already closed.",
    "Action impossible sur cette tâche.": "Not possible on this task.",
    # errors
    "Accès refusé.": "Access denied.",
    "Page introuvable.": "Page not found.",
    "Jeton de formulaire invalide : rechargez la page.": "Invalid form token: reload the page.",
    "Réservé aux administrateurs.": "Admins only.",
    "Retour": "Back",
    "Langue": "Language",
    # second French reader pass (h-fixweb): balance figures once, the mirror caption's claims
    "%s duels · durée moyenne : %s tours · durée médiane : %s tours · nuls : %s %% · "
    "clos au plafond de tours : %s %%": (
        "%s duels · mean length: %s turns · median length: %s turns · draws: %s %% · "
        "closed at the turn cap: %s %%"
    ),
    "Si l'ordre des duellistes ne comptait pas, chaque case de la diagonale (même année, "
    "même magie) vaudrait en moyenne 50 %% moins la moitié de ses nuls et duels clos, et "
    "deux cases symétriques (ligne, colonne) et (colonne, ligne) feraient ensemble en "
    "moyenne 100 %% moins leurs nuls et duels clos. Avec %s duels par case, le hasard "
    "seul écarte une case de sa valeur attendue de %s points au plus, 19 fois sur 20 (et "
    "une paire de %s points).": (
        "If the duellists' order did not matter, each diagonal square (same year, same magic "
        "type) would read on average 50 %% less half its draws and closed duels, and two "
        "symmetric squares (row, column) and (column, row) would add up on average to 100 %% "
        "less their draws and closed duels. With %s duels a square, chance alone moves a "
        "square from its expected value by at most %s points 19 times in 20 (a pair by %s)."
    ),
    "Dans ce tableau, la diagonale va de %s à %s et les paires symétriques de %s à %s "
    "ensemble ; %s comparaisons sur %s dépassent cet écart (le hasard seul en donnerait "
    "environ %s).": (
        "In this table the diagonal goes from %s to %s and the symmetric pairs from %s to %s "
        "together; %s comparisons of %s go beyond that spread (chance alone would give about "
        "%s)."
    ),
    "au tour %s": "at turn %s",
    "Empreinte de la graine des dés": "Commitment of the dice seed (SHA-256)",
    "Lancé par": "Rolled by",
    "détails": "details",
    "Publication automatique au prochain passage": "Auto-publish at the next pass",
    "Supprimer ce brouillon": "Delete this draft",
    "Hibou : un message privé sur le forum. Les avis arrivés moins de %s min après le "
    "précédent sont regroupés dans le suivant, qui part toujours avant la publication "
    "automatique d'un brouillon.": (
        "Owl: a private message on the board. Notices coming less than %s min after the last "
        "one are gathered into the next, which always goes before a draft publishes by itself."
    ),
}


def pick_language(query_value: str | None, cookie_value: str | None) -> str:
    """The page language: the query's, else the cookie's, else French."""
    for value in (query_value, cookie_value):
        if value in LANGUAGES:
            return value
    return DEFAULT_LANGUAGE


def _elide(text: str, args: tuple[object, ...]) -> str:
    """French elision before a name: « de %s » becomes « d'%s » (and « que %s » « qu'%s ») when
    the name that fills that ``%s`` starts with a vowel or h (« Points d'Aurora Vexley »)."""
    parts = text.split("%s")
    for i, arg in enumerate(args[: len(parts) - 1]):
        if str(arg).startswith(ELIDING_INITIALS):
            before = parts[i]
            for word, elided in ((" de ", " d'"), (" que ", " qu'")):
                if before.endswith(word) or before == word.lstrip():
                    parts[i] = before[: len(before) - len(word.lstrip())] + elided.lstrip()
                    break
    return "%s".join(parts)


def translator(language: str) -> Callable[..., str]:
    """``_(french, *args)``: the text in ``language`` with ``%s`` filled by ``args``."""

    def _(text: str, *args: object) -> str:
        out = ENGLISH.get(text, text) if language == "en" else text
        if language != "en" and args:
            out = _elide(out, args)
        return out % args if args else out

    return _
