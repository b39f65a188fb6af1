/**
 * The plain data that the functional core (grouping, promotion, reconcile) works on.
 *
 * The API layer validates Immich's answers into these lean values and keeps only what
 * grouping, promotion and planning read, so that 200 000 assets fit in little memory.
 * Nothing in this module performs I/O.
 *
 * @module
 */

/** Immich's asset types. */
export type AssetType = "IMAGE" | "VIDEO" | "AUDIO" | "OTHER";

/**
 * One asset of the user, as grouping and promotion see it.
 *
 * Time fields keep the server's ISO 8601 text (`…Z` from search, `…+00:00` from stacks);
 * grouping parses only the ones its criteria use, so a malformed time costs one skipped
 * asset and never a failed run. Besides the fields promotion and planning read, it has the
 * {@linkcode CriterionFields} the run's criteria use; a missing one counts as no value.
 */
export interface Asset extends Partial<CriterionFields> {
  readonly id: string;
  readonly originalFileName: string;
  readonly localDateTime: string;
  /** File size in bytes from EXIF; present only when a size promotion asked for EXIF. */
  readonly fileSizeInByte?: number;
  /**
   * The camera from EXIF, make and model (`Canon EOS R5`), read for the default rules; absent
   * when EXIF names none or was not read.
   */
  readonly camera?: string;
  /** The lens from EXIF (`RF24-105mm F4 L IS USM`), read with the camera. */
  readonly lens?: string;
  /**
   * The exposure from EXIF in twelfths of a stop, `log2(exposure time × ISO / f-number²)`
   * rounded: two files of one shot have the same, the frames of an HDR bracket do not.
   */
  readonly exposure?: number;
  /** EXIF gives no capture time: `localDateTime` is the file's date, read with the camera. */
  readonly undated?: true;
}

/**
 * Fields that only grouping criteria read. An {@linkcode Asset} carries those its run's
 * CRITERIA use and no others: at 200 000 assets the unused ones would cost tens of megabytes.
 */
export interface CriterionFields {
  readonly originalPath: string;
  readonly fileCreatedAt: string;
  readonly fileModifiedAt: string;
  readonly updatedAt: string;
  readonly type: AssetType;
  readonly checksum: string;
  readonly ownerId: string;
  readonly isFavorite: boolean;
  readonly isArchived: boolean;
  readonly isTrashed: boolean;
  readonly isOffline: boolean;
  readonly hasMetadata: boolean;
  /** Video duration as Immich reports it (`"0:00:00.00000"`), or null. */
  readonly duration: string | null;
  /** The uploading device and its id for the file: sent by Immich before v3 only. */
  readonly deviceId: string | undefined;
  readonly deviceAssetId: string | undefined;
}

/** The name of a field only criteria read. */
export type CriterionField = keyof CriterionFields;

/**
 * An existing stack on the server. `assetIds` holds every member, the primary included.
 *
 * `GET /stacks` lists neither trashed nor hidden members; the run adds those it finds in the
 * trash and among hidden assets before planning (see docs/safety.md).
 */
export interface Stack {
  readonly id: string;
  readonly primaryAssetId: string;
  readonly assetIds: readonly string[];
  /**
   * Members that `GET /stacks` showed as archived. Immich's `GET /assets/{id}` names the stack
   * of a trashed or hidden member only when the stack has a member besides its primary that is
   * on the timeline, so these decide which stacks may hide a member it did not name.
   */
  readonly archivedAssetIds?: readonly string[];
}

/**
 * A stack as the pass found it: the ground an action that changes it was planned on. Just before
 * the write, the stack is read again and compared with it (`src/reconcile/ground.ts`).
 */
export interface GroundStack {
  readonly id: string;
  readonly primaryAssetId: string;
  /** Every member, primary first, members Immich does not list included. */
  readonly assetIds: readonly string[];
}

/**
 * A stack as the pass found it, carried by every action that deletes it, so that a replace
 * that cannot finish puts it back (Immich gives it a new id).
 */
export interface PreviousStack extends GroundStack {
  /** Members in the trash: no create can put them back, Immich leaves them out. */
  readonly trashedAssetIds: readonly string[];
}

/**
 * A member of a recorded stack: its id and, when known, its file name; members that
 * `GET /stacks` does not list are marked, as in the trash or hidden (a live photo's video).
 */
export interface RecordedAsset {
  readonly id: string;
  readonly originalFileName?: string;
  readonly trashed?: true;
  readonly hidden?: true;
}

/**
 * A stack as a journal or a backup records it, and as a write's ground is read just before the
 * write: every member, the primary first.
 */
export interface RecordedStack {
  readonly id: string;
  readonly primaryAssetId: string;
  readonly assets: readonly RecordedAsset[];
}

/**
 * A computed group: the desired state of one stack.
 *
 * `key` is the criteria values joined with `|`. Before promotion `assets` is in grouping's
 * deterministic order; after promotion the first asset is the desired parent.
 */
export interface Group {
  readonly key: string;
  readonly assets: readonly Asset[];
  /** Which rule made the group, for people (`Pixel burst, 12 frames`); default rules only. */
  readonly label?: string;
  /**
   * The assets the rules would make the cover (the maker's COVER, the edited copy, the middle
   * exposure of a bracket), by id; the promote settings still come first.
   */
  readonly preferred?: readonly string[];
}

/** Why an asset was left out of grouping, for the caller to log and count. */
export type SkipReason =
  /** A filter of an expression (a boolean key, or NOT) rejected the asset. */
  | "excluded"
  | "invalid-time"
  | "missing-value"
  | "regex-miss"
  | "split-out-of-range";

/** An asset that grouping could not place, with the reason and the criterion's key. */
export interface SkippedAsset {
  readonly asset: Asset;
  readonly reason: SkipReason;
  /** The criterion key (e.g. `localDateTime`) whose value could not be computed. */
  readonly key: string;
  /** Human detail such as the offending value. */
  readonly detail: string;
}

/**
 * A regex criterion that also promotes: the text captured by group `promoteIndex` of `pattern`
 * (applied to `field`) ranks the asset by its position in `promoteKeys`; earlier is stronger.
 * Grouping derives these from CRITERIA; promotion applies them.
 */
export interface RegexPromotion {
  readonly field: "originalFileName" | "originalPath";
  readonly pattern: RegExp;
  readonly promoteIndex: number;
  readonly promoteKeys: readonly string[];
}

/** The user an API key belongs to (`GET /users/me`), as the run logs it. */
export interface User {
  readonly id: string;
  readonly name: string;
  readonly email: string;
}

/** The Immich server's version (`GET /server/version`); it decides which checks apply. */
export interface ServerVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/**
 * Why the plan deletes a stack on its own rather than as part of a replace; `not-in-target`:
 * an undo or restore wants none of its assets stacked this way.
 */
export type DeleteReason = "single-asset-stack" | "reset" | "not-in-target";

/**
 * Why a group cannot be reached by a primary update or a grow: a member the pass fetched is
 * outside the group, the group spans stacks, or the stack that would grow holds a member in the
 * trash (or may hold one Immich does not name), which Immich's merge drops.
 */
export type ConflictReason = "member-outside-group" | "group-spans-stacks" | "member-in-trash";

/** Why the plan creates a stack from a group that touches no existing stack. */
export type CreateReason = "new-group" | "reset";

/** Every reason code an action can carry; stable lower-case strings for logs and json. */
export type ActionReason =
  | DeleteReason
  | ConflictReason
  | CreateReason
  | "primary-changed"
  | "group-grew";

/**
 * An asset as people see it: its id and file name (the id stands in when the name is
 * unknown). Every {@linkcode Asset} is one, so plans share the groups' asset objects.
 */
export type AssetLabel = Pick<Asset, "id" | "originalFileName">;

/**
 * An asset that a replace takes out of a stack without putting it in the new one, and where
 * it ends up: in another group's stack (`in-other-group`) or in no stack (`in-no-group`); or,
 * for a member the pass never looked at, why: it was not fetched (`not-fetched`: a video, an
 * archived photo, one outside the filters, a hidden part) or it is in the trash (`in-trash`).
 */
export interface RemovedAsset extends AssetLabel {
  readonly reason: "in-other-group" | "in-no-group" | "not-fetched" | "in-trash";
}

/** What people and logs see about an action; `apply` never reads it. */
export interface ActionContext {
  /** The key of the group the action serves; absent for deletions. */
  readonly groupKey?: string;
  /** Which rule made the group (`RAW+JPEG pair`), when the default rules made it. */
  readonly label?: string;
  /** The action's assets in the order of `assetIds`, parent first. */
  readonly assets: readonly AssetLabel[];
  /** For `update-primary`: the primary being replaced. */
  readonly previousPrimary?: AssetLabel;
  /** For `grow`: the assets that join the stack. */
  readonly added?: readonly AssetLabel[];
  /** For `replace`: members of the deleted stacks that leave them for good. */
  readonly removed?: readonly RemovedAsset[];
  /**
   * For `replace`: the deleted stacks that may hold members Immich lists nowhere, which leave
   * them too.
   */
  readonly unseenStackIds?: readonly string[];
}

/** Delete one stack; its assets stay, unstacked. `assetIds` are its members, primary first. */
export interface DeleteAction {
  readonly kind: "delete";
  readonly stackId: string;
  readonly assetIds: readonly string[];
  /** Members in the trash, as in {@linkcode PreviousStack}. */
  readonly trashedAssetIds: readonly string[];
  readonly reason: DeleteReason;
  readonly context: ActionContext;
}

/** `PUT /stacks/{id}` to the group's parent; members already match the group. */
export interface UpdatePrimaryAction {
  readonly kind: "update-primary";
  readonly stackId: string;
  /** The group, parent first; `assetIds[0]` becomes the primary. */
  readonly assetIds: readonly string[];
  readonly reason: "primary-changed";
  /** The stack `stackId` as the plan found it. */
  readonly ground: GroundStack;
  readonly context: ActionContext;
}

/**
 * `POST /stacks` with the whole group in its order. Every member of the stack `stackId` that
 * the pass fetched is in the group and none is in the trash; its primary is listed (first when
 * the pass did not fetch it, so it stays the cover), so Immich's merge rule folds the stack
 * into the new one and no member is lost; the stack then has a new id.
 */
export interface GrowAction {
  readonly kind: "grow";
  readonly stackId: string;
  readonly assetIds: readonly string[];
  readonly reason: "group-grew";
  /** The stack `stackId` as the plan found it. */
  readonly ground: GroundStack;
  readonly context: ActionContext;
}

/** `POST /stacks` for a group that touches no stack that still exists at that moment. */
export interface CreateAction {
  readonly kind: "create";
  readonly assetIds: readonly string[];
  readonly reason: CreateReason;
  /**
   * For a reset: the stacks holding its assets before the pass, deleted earlier in the plan.
   * Like a replace, it is not sent when one of them could not be deleted, and it is undone
   * together with them.
   */
  readonly stackIds?: readonly string[];
  /**
   * A stack of one asset, made on purpose: an undo or restore puts back a 1-asset stack (the
   * Immich client lists the asset twice, which Immich folds). Never set by a stacking pass.
   */
  readonly single?: true;
  readonly context: ActionContext;
}

/**
 * Delete the stacks a conflicting group touches, then create the group. `apply` runs the
 * deletions with all other deletions and the creation with the other creations; the creation
 * is skipped when any stack of `stackIds` could not be deleted.
 */
export interface ReplaceAction {
  readonly kind: "replace";
  /** Every stack the group touches; all of them are gone before the creation. */
  readonly stackIds: readonly string[];
  /**
   * The stacks this action deletes: `stackIds` minus those an earlier replace of the same
   * plan deletes, so that no stack is deleted twice.
   */
  readonly deleteStackIds: readonly string[];
  /** As for {@linkcode CreateAction.single}: the group is one asset on purpose. */
  readonly single?: true;
  /** The stacks of `deleteStackIds` as they were, in that order, to put back on failure. */
  readonly previous: readonly PreviousStack[];
  readonly assetIds: readonly string[];
  readonly reason: ConflictReason;
  readonly context: ActionContext;
}

/** One change to the server; a closed union on `kind`. */
export type Action =
  | DeleteAction
  | UpdatePrimaryAction
  | GrowAction
  | CreateAction
  | ReplaceAction;

/** A group whose stack already matches: same members, same primary. */
export interface InSyncStack {
  readonly stackId: string;
  readonly groupKey: string;
}

/** A conflicting group left alone because REPLACE_STACKS is off. */
export interface NeedsReplace {
  readonly stackIds: readonly string[];
  readonly assetIds: readonly string[];
  readonly reason: ConflictReason;
  readonly context: ActionContext;
}

/**
 * What a pass will do, as a value. `actions` is in execution order: every `delete` and
 * `replace` comes before every `update-primary`, `grow` and `create`.
 */
export interface Plan {
  readonly actions: readonly Action[];
  readonly inSync: readonly InSyncStack[];
  readonly needsReplace: readonly NeedsReplace[];
}

/**
 * Why an action was not carried out: a dry run, a shutdown signal before it started, a stack
 * it needed gone that could not be deleted, the server refusing the key (401 or 403) earlier in
 * the pass, another replace it shares stacks with failing, which put those stacks back, or the
 * stack read again just before the write (docs/safety.md, "Fresh ground").
 */
export type SkipCause =
  | "dry-run"
  | "aborted"
  | "deletion-failed"
  | "access-denied"
  | "rolled-back"
  /** Read again just before the write, the stack was as the plan wants already. */
  | "in-sync"
  /** Read again just before the write, the stack conflicts with the group (no REPLACE_STACKS). */
  | "needs-replace"
  /** Read again just before the write, the stack's members changed: left for the next pass. */
  | "changed";

/** A stack deleted by a replace that could not finish, put back as it was. */
export interface RestoredStack {
  /** Its id before the pass. */
  readonly from: string;
  /** Its new id. */
  readonly to: string;
  /** Members that could not be put back because they are in the trash. */
  readonly leftOut: readonly string[];
}

/** A stack deleted by a replace that could not finish, and could not be put back. */
export interface LostStack {
  readonly from: string;
  /** Its members, primary first, for putting it back by hand. */
  readonly assetIds: readonly string[];
  readonly error: string;
}

/** What undoing a replace (or reset) that could not finish did. */
export interface Rollback {
  readonly restored: readonly RestoredStack[];
  readonly lost: readonly LostStack[];
}

/** Why fix-trash moves a photo to the trash. */
export type TrashReason =
  /**
   * It is the same shot as a photo the user put in the trash (its RAW, JPEG or an edit) and in
   * its CRITERIA group; with FIX_TRASH_WHOLE_GROUP, anything of that group.
   */
  | "follows-trashed"
  /** A RAW file without a developed photo in its group or stack (TRASH_ORPHANED_RAWS). */
  | "orphaned-raw";

/** What people and logs see about a move to or from the trash; the applier never reads it. */
export interface TrashContext {
  /** The photos in the order of `assetIds`. */
  readonly assets: readonly AssetLabel[];
  /** For `follows-trashed`: the photos in the trash whose group they are in, cover first. */
  readonly cause?: readonly AssetLabel[];
}

/**
 * `DELETE /assets` with `force: false`: moves photos to the trash, from where Immich restores
 * them until it empties the trash; never a deletion for good. `undo` when an undo puts back a
 * restore.
 */
export interface TrashAction {
  readonly kind: "trash";
  readonly assetIds: readonly string[];
  readonly reason: TrashReason | "undo";
  readonly context: TrashContext;
}

/** `POST /trash/restore/assets`: brings photos back out of the trash (an undo of fix-trash). */
export interface RestoreAction {
  readonly kind: "restore";
  readonly assetIds: readonly string[];
  readonly reason: "undo";
  readonly context: TrashContext;
}

/** One move to or from the trash. */
export type TrashWrite = TrashAction | RestoreAction;

/** What fix-trash (or an undo of it) moves to or from the trash, in execution order. */
export interface TrashPlan {
  readonly actions: readonly TrashWrite[];
}

/** What became of one action of a plan (or, with `A`, of one move to or from the trash). */
export type Outcome<A extends Action | TrashWrite = Action> =
  | {
    readonly action: A;
    readonly status: "ok";
    /** The stack made by a `create`, `grow` or `replace`. */
    readonly stackId?: string;
  }
  | {
    readonly action: A;
    readonly status: "failed";
    readonly error: string;
    /** The server refused the key (401 or 403): the user's pass stopped here. */
    readonly accessDenied?: boolean;
    /** The stacks it had deleted, put back or not. */
    readonly rollback?: Rollback;
  }
  | {
    readonly action: A;
    readonly status: "skipped";
    readonly because: SkipCause;
    /** For `deletion-failed`: the stacks it had deleted, put back or not. */
    readonly rollback?: Rollback;
    /**
     * For `aborted` and `access-denied`: the stacks it had deleted before the pass stopped,
     * which are gone (the next run makes their replacement from the same assets).
     */
    readonly deletedStackIds?: readonly string[];
  };
